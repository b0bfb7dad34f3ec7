// Node entry: reads memdex_bg.wasm from disk (fetch() cannot read file: URLs).
import { readFile } from 'node:fs/promises';
import init from './memdex.js';
import { defineMemdex } from './core.js';

export { MemdexError } from './core.js';
export const Memdex = defineMemdex(async (wasm) =>
  init({ module_or_path: wasm ?? (await readFile(new URL('./memdex_bg.wasm', import.meta.url))) }),
);
