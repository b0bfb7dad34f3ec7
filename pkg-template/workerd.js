// Cloudflare Workers (workerd) entry. Workers forbid compiling wasm from
// bytes at runtime, so the module is imported and compiled at deploy time
// (wrangler and Miniflare treat `.wasm` imports as CompiledWasm modules).
// Storage: 'memory' (default) or an adapter such as `kvStorage(env.MEMDEX_KV)`.
import wasmModule from './memdex_bg.wasm';
import { initSync } from './memdex.js';
import { MemdexBase, MemdexError } from './core.js';
import { memoryStorage } from './storage/memory.js';
import { withIndexLock } from './storage/locks.js';

export { MemdexError } from './core.js';
export { memoryStorage, withIndexLock };

/** @type {import('./core.js').Platform} */
const platform = {
  loadWasm: (wasm) => {
    initSync({ module: wasm ?? wasmModule });
  },
  storages: { memory: () => memoryStorage() },
  withIndexLock,
};

export class Memdex extends MemdexBase {
  static platform = platform;

  /** @returns {Promise<never>} */
  static async openInWorker() {
    throw new MemdexError('USAGE', 'openInWorker() is for browsers; in a Cloudflare Worker use Memdex.open()');
  }
}
