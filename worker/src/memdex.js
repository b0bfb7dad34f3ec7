// @ts-check
// The package, as a user's Worker imports it: `memdex` resolves to its
// workerd build (the `workerd` export condition), typed by its published
// declarations.
export { Memdex, MemdexError } from 'memdex';
export * as tools from 'memdex/tools';

/** @typedef {import('memdex').StorageAdapter} StorageAdapter */
/** @typedef {import('memdex').SearchOptions} SearchOptions */
/** @typedef {import('memdex/tools').ToolResult} ToolResult */
