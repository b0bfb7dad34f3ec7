// The Node platform of both builds' entries (node.js, lexical-node.js): the
// wasm the entry reads from disk, memory and filesystem storage.
import init from './memdex.js';
import { MemdexError } from './memdex-error.js';
import { memoryStorage } from './storage/memory.js';
import { fsStorage } from './storage/fs.js';
import { withIndexLock } from './storage/locks.js';

/**
 * @param {() => Promise<Uint8Array>} readWasm reads the build's .wasm
 * @param {'full' | 'lexical'} build
 * @returns {import('./core.js').Platform}
 */
export function nodePlatform(readWasm, build) {
  return {
    build,
    loadWasm: async (wasm) => init({ module_or_path: wasm ?? (await readWasm()) }),
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
