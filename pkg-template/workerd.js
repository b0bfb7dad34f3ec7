// Cloudflare Workers (workerd) entry. Workers forbid compiling wasm from
// bytes at runtime, so the module is imported and compiled at deploy time
// (wrangler and Miniflare treat `.wasm` imports as CompiledWasm modules).
// Storage: 'memory' (default) or an adapter such as `kvStorage(env.MEMDEX_KV)`.
import wasmModule from './memdex_bg.wasm';
import { initSync } from './memdex.js';
import { defineMemdex, MemdexError } from './core.js';
import { memoryStorage } from './storage/memory.js';
import { withIndexLock } from './storage/locks.js';

export { MemdexError } from './core.js';
export { memoryStorage, withIndexLock };

export const Memdex = defineMemdex({
  loadWasm: (wasm) => {
    initSync({ module: wasm ?? wasmModule });
  },
  storages: { memory: () => memoryStorage() },
  withIndexLock,
});

Memdex.openInWorker = async () => {
  throw new MemdexError('USAGE', 'openInWorker() is for browsers; in a Cloudflare Worker use Memdex.open()');
};
