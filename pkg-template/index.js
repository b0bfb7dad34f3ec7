// Browser (and default) entry: fetches memdex_bg.wasm next to this file,
// unless `Memdex.open({ wasm })` passes a URL, Response, bytes or a
// WebAssembly.Module. Storage: 'memory' (default) or 'indexeddb'.
// Both files are referenced as `new URL('./file', import.meta.url)`, the
// form Vite and webpack follow to emit the wasm and bundle the worker.
import { MemdexBase } from './core.js';
import { memoryStorage } from './storage/memory.js';
import { withIndexLock } from './storage/locks.js';
import { defineOpenInWorker } from './worker-client.js';
import { browserPlatform } from './platform-browser.js';

export { MemdexError } from './core.js';
export { memoryStorage, withIndexLock };

export class Memdex extends MemdexBase {
  static platform = browserPlatform(() => new URL('./memdex_bg.wasm', import.meta.url), 'full');

  static openInWorker = defineOpenInWorker(
    () => new Worker(new URL('./worker.js', import.meta.url), { type: 'module', name: 'memdex' }),
  );
}
