// Browser (and default) entry: fetches memdex_bg.wasm next to this file,
// unless `Memdex.create({ wasm })` passes a URL, Response, bytes or a
// WebAssembly.Module.
import init from './memdex.js';
import { defineMemdex } from './core.js';

export { MemdexError } from './core.js';
export const Memdex = defineMemdex((wasm) =>
  init({ module_or_path: wasm ?? new URL('./memdex_bg.wasm', import.meta.url) }),
);
