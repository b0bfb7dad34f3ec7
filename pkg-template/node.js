// Node entry: reads memdex_bg.wasm from disk (fetch() cannot read file: URLs).
// Storage: 'memory' (default) or 'fs' with `dir`.
import { readFile } from 'node:fs/promises';
import init from './memdex.js';
import { MemdexBase, MemdexError } from './core.js';
import { memoryStorage } from './storage/memory.js';
import { fsStorage } from './storage/fs.js';
import { withIndexLock } from './storage/locks.js';

export { MemdexError } from './core.js';
export { memoryStorage, withIndexLock };

/** @type {import('./core.js').Platform} */
const platform = {
  loadWasm: async (wasm) =>
    init({ module_or_path: wasm ?? (await readFile(new URL('./memdex_bg.wasm', import.meta.url))) }),
  storages: {
    memory: () => memoryStorage(),
    fs: ({ dir }) => {
      if (typeof dir !== 'string' || dir === '') {
        throw new MemdexError('USAGE', "storage 'fs' needs `dir`: Memdex.open({ storage: 'fs', dir: './memdex-data' })");
      }
      return fsStorage(dir);
    },
  },
  withIndexLock,
};

export class Memdex extends MemdexBase {
  static platform = platform;

  /** @returns {Promise<never>} */
  static async openInWorker() {
    throw new MemdexError('USAGE', 'openInWorker() needs a browser (Web Workers); in Node use Memdex.open() (or run it in a worker_thread yourself)');
  }
}
