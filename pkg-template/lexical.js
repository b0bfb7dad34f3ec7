// Browser (and default) entry of the lexical build, `memdex/lexical`: the
// same API over memdex-lexical_bg.wasm (English analysis; no vector, hybrid
// or link search, diversity, dedupe, recover or migrate: those calls fail
// with USAGE naming 'memdex'). Index bytes are the full build's: either
// build opens what the other wrote.
import { MemdexBase } from './core.js';
import { memoryStorage } from './storage/memory.js';
import { withIndexLock } from './storage/locks.js';
import { defineOpenInWorker } from './worker-client.js';
import { browserPlatform } from './platform-browser.js';

export { MemdexError } from './core.js';
export { memoryStorage, withIndexLock };

const wasmUrl = () => new URL('./memdex-lexical_bg.wasm', import.meta.url);
const openInWorker = defineOpenInWorker(
  () => new Worker(new URL('./worker.js', import.meta.url), { type: 'module', name: 'memdex' }),
);

export class Memdex extends MemdexBase {
  static platform = browserPlatform(wasmUrl, 'lexical');

  /** The worker loads the lexical wasm unless `wasm` says otherwise. @param {import('./index.js').WorkerOpenOptions} [options] */
  static openInWorker = (options = {}) => openInWorker({ wasm: wasmUrl().href, ...options });
}
