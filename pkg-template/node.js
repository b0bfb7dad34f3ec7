// Node entry: reads memdex_bg.wasm from disk (fetch() cannot read file: URLs).
// Storage: 'memory' (default) or 'fs' with `dir`.
import { readFile } from 'node:fs/promises';
import { MemdexBase } from './core.js';
import { memoryStorage } from './storage/memory.js';
import { withIndexLock } from './storage/locks.js';
import { noWorkerInNode, nodePlatform } from './platform-node.js';

export { MemdexError } from './core.js';
export { memoryStorage, withIndexLock };

export class Memdex extends MemdexBase {
  static platform = nodePlatform(() => readFile(new URL('./memdex_bg.wasm', import.meta.url)), 'full');

  static openInWorker = noWorkerInNode;
}
