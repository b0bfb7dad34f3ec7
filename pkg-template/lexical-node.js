// Node entry of the lexical build (`memdex/lexical`; see lexical.js).
import { readFile } from 'node:fs/promises';
import { MemdexBase } from './core.js';
import { memoryStorage } from './storage/memory.js';
import { withIndexLock } from './storage/locks.js';
import { noWorkerInNode, nodePlatform } from './platform-node.js';

export { MemdexError } from './core.js';
export { memoryStorage, withIndexLock };

export class Memdex extends MemdexBase {
  static platform = nodePlatform(() => readFile(new URL('./memdex-lexical_bg.wasm', import.meta.url)), 'lexical');

  static openInWorker = noWorkerInNode;
}
