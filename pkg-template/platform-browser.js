// The browser platform of both builds' entries (index.js, lexical.js): the
// wasm fetched from the URL the entry names (index.js names two: the
// English one and the all-languages one, languages.js), memory and
// IndexedDB storage.
import init from './memdex.js';
import { memoryStorage } from './storage/memory.js';
import { indexedDBStorage } from './storage/indexeddb.js';
import { withIndexLock } from './storage/locks.js';

/**
 * The wasm's response; anything but the wasm fails naming the URL (a server
 * that answers every path, such as a dev server, sends a page with 200).
 * @param {URL} url
 */
async function fetchWasm(url) {
  const response = await fetch(url).catch((err) => {
    throw Error(`GET ${url}: ${err.message}`);
  });
  const type = response.headers.get('content-type');
  if (!response.ok || /html/.test(String(type))) throw Error(`GET ${response.url}: ${response.status} (${type})`);
  return response;
}

/**
 * @param {() => URL} wasmUrl the build's .wasm (a `new URL('./file', import.meta.url)` in the entry, for bundlers)
 * @param {'full' | 'lexical'} build
 * @param {{ url: () => URL, languages: import('./realm.js').LanguageSwitch }} [english] the full build's English-only wasm, fetched first, and the switch away from it (languages.js)
 * @returns {import('./core.js').Platform}
 */
export function browserPlatform(wasmUrl, build, english) {
  const englishUrl = english?.url;
  return {
    build,
    languages: english?.languages,
    loadWasm: (wasm, english) => init({ module_or_path: wasm ?? fetchWasm(english && englishUrl ? englishUrl() : wasmUrl()) }),
    storages: {
      memory: () => memoryStorage(),
      indexeddb: ({ database = 'memdex' }) => indexedDBStorage({ database }),
    },
    withIndexLock,
  };
}
