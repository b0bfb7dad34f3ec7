// The Node platform of both builds' entries (node.js, lexical-node.js): the
// wasm read from disk (fetch() cannot read file: URLs), memory and
// filesystem storage.
import { readFile } from 'node:fs/promises';
import init from './memdex.js';
import { MemdexError } from './memdex-error.js';
import { memoryStorage } from './storage/memory.js';
import { fsStorage } from './storage/fs.js';
import { withIndexLock } from './storage/locks.js';

/**
 * @param {URL} wasmUrl the build's .wasm
 * @param {'full' | 'lexical'} build
 * @returns {import('./core.js').Platform}
 */
export function nodePlatform(wasmUrl, build) {
  return {
    build,
    loadWasm: async (wasm) => init({ module_or_path: wasm ?? (await readFile(wasmUrl)) }),
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
}

/** `openInWorker` in Node. @returns {Promise<never>} */
export async function noWorkerInNode() {
  throw new MemdexError('USAGE', 'openInWorker() needs a browser (Web Workers); in Node use Memdex.open() (or run it in a worker_thread yourself)');
}
