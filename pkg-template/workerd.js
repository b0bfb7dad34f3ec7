// Cloudflare Workers (workerd) entry. Workers forbid compiling wasm from
// bytes at runtime, so the module is imported and compiled at deploy time
// (wrangler and Miniflare treat `.wasm` imports as CompiledWasm modules).
import wasmModule from './memdex_bg.wasm';
import { initSync } from './memdex.js';
import { defineMemdex } from './core.js';

export { MemdexError } from './core.js';
export const Memdex = defineMemdex((wasm) => {
  initSync({ module: wasm ?? wasmModule });
});
