// @ts-check
// The package, typed. The Worker imports the built package's workerd entry
// by path (workerd has no package resolution; a Worker that installs memdex
// from npm writes `from 'memdex'` and wrangler picks the same file through
// the `workerd` export condition). The types come from the hand-written
// declarations in pkg-template/ (the built .js files are minified).
import * as built from '../../pkg/workerd.js';
import * as builtTools from '../../pkg/tools.js';

/** @typedef {import('../../pkg-template/index.js').Memdex} Memdex */
/** @typedef {import('../../pkg-template/index.js').StorageAdapter} StorageAdapter */
/** @typedef {import('../../pkg-template/index.js').SearchOptions} SearchOptions */
/** @typedef {import('../../pkg-template/tools.js').ToolResult} ToolResult */

export const Memdex = /** @type {typeof import('../../pkg-template/index.js').Memdex} */ (/** @type {any} */ (built).Memdex);
export const MemdexError = /** @type {typeof import('../../pkg-template/index.js').MemdexError} */ (
  /** @type {any} */ (built).MemdexError
);

/** @type {typeof import('../../pkg-template/tools.js')} */
export const tools = /** @type {any} */ (builtTools);
