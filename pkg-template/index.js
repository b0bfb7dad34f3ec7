// Browser (and default) entry: fetches memdex_bg.wasm next to this file,
// unless `Memdex.open({ wasm })` passes a URL, Response, bytes or a
// WebAssembly.Module. Storage: 'memory' (default) or 'indexeddb'.
import init from './memdex.js';
import { MemdexBase } from './core.js';
import { memoryStorage } from './storage/memory.js';
import { indexedDBStorage } from './storage/indexeddb.js';
import { withIndexLock } from './storage/locks.js';
import { defineOpenInWorker } from './worker-client.js';

export { MemdexError } from './core.js';
export { memoryStorage, withIndexLock };

/** @type {import('./core.js').Platform} */
const platform = {
  loadWasm: (wasm) => init({ module_or_path: wasm ?? new URL('./memdex_bg.wasm', import.meta.url) }),
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
