// Cloudflare Workers entry of the lexical build (`memdex/lexical`; see
// lexical.js and workerd.js). Imports only the lexical wasm, so a Worker
// uploads one module.
import wasmModule from './memdex-lexical_bg.wasm';
import { initSync } from './memdex.js';
import { MemdexBase, MemdexError } from './core.js';
import { memoryStorage } from './storage/memory.js';
import { withIndexLock } from './storage/locks.js';

export { MemdexError } from './core.js';
export { memoryStorage, withIndexLock };

export class Memdex extends MemdexBase {
  /** @type {import('./core.js').Platform} */
  static platform = {
    build: 'lexical',
    loadWasm: (wasm) => {
      initSync({ module: wasm ?? wasmModule });
    },
    storages: { memory: () => memoryStorage() },
    withIndexLock,
  };

  /** @returns {Promise<never>} */
  static async openInWorker() {
    throw new MemdexError('USAGE', 'openInWorker() is for browsers; in a Cloudflare Worker use Memdex.open()');
  }
}
