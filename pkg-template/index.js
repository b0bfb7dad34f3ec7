// Browser (and default) entry: fetches memdex_bg.wasm next to this file,
// unless `Memdex.open({ wasm })` passes a URL, Response, bytes or a
// WebAssembly.Module. Storage: 'memory' (default) or 'indexeddb'.
// Both files are referenced as `new URL('./file', import.meta.url)`, the
// form Vite and webpack follow to emit the wasm and bundle the worker.
import init from './memdex.js';
import { MemdexBase } from './core.js';
import { memoryStorage } from './storage/memory.js';
import { indexedDBStorage } from './storage/indexeddb.js';
import { withIndexLock } from './storage/locks.js';
import { defineOpenInWorker } from './worker-client.js';

export { MemdexError } from './core.js';
export { memoryStorage, withIndexLock };

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

/** @type {import('./core.js').Platform} */
const platform = {
  loadWasm: (wasm) => init({ module_or_path: wasm ?? fetchWasm(new URL('./memdex_bg.wasm', import.meta.url)) }),
  storages: {
    memory: () => memoryStorage(),
    indexeddb: ({ database = 'memdex' }) => indexedDBStorage({ database }),
  },
  withIndexLock,
};

export class Memdex extends MemdexBase {
  static platform = platform;

  static openInWorker = defineOpenInWorker(
    () => new Worker(new URL('./worker.js', import.meta.url), { type: 'module', name: 'memdex' }),
  );
}
