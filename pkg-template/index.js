// Browser (and default) entry: fetches memdex-english_bg.wasm next to this
// file, and memdex_bg.wasm (every language) instead when an index needs
// another language (languages.js), unless `Memdex.open({ wasm })` passes a
// URL, Response, bytes or a WebAssembly.Module. Storage: 'memory'
// (default) or 'indexeddb'. The files are referenced as
// `new URL('./file', import.meta.url)`, the form Vite and webpack follow
// to emit the wasm files and bundle the worker.
import { MemdexBase } from './core.js';
import { memoryStorage } from './storage/memory.js';
import { withIndexLock } from './storage/locks.js';
import { defineOpenInWorker } from './worker-client.js';
import { browserPlatform } from './platform-browser.js';
import { languageSwitch } from './languages.js';

export { MemdexError } from './core.js';
export { memoryStorage, withIndexLock };

export class Memdex extends MemdexBase {
  static platform = browserPlatform(
    () => new URL('./memdex_bg.wasm', import.meta.url),
    'full',
    { url: () => new URL('./memdex-english_bg.wasm', import.meta.url), languages: languageSwitch },
  );

  static openInWorker = defineOpenInWorker(
    () => new Worker(new URL('./worker.js', import.meta.url), { type: 'module', name: 'memdex' }),
  );
}
