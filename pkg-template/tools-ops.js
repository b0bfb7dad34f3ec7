// Runs a validated memory tool call (definitions and argument checks:
// ./tools.js) with the read tools of ./tools-read.js and the write tools of
// ./tools-write.js; ids, namespaces and results: ./tools-common.js.
import { fail } from './tools-common.js';
import { get, list, related, search } from './tools-read.js';
import { remove, store, update } from './tools-write.js';

export { SEP, failure } from './tools-common.js';

/** @typedef {import('./tools-common.js').ToolContext} ToolContext */
/** @typedef {import('./tools-common.js').ToolArgs} ToolArgs */
/** @typedef {import('./tools-common.js').ToolResult} ToolResult */
/** @typedef {import('./tools-common.js').ToolName} ToolName */

/**
 * Each tool's implementation; `args` were checked against its input schema
 * (required arguments included) before it runs.
 * @type {Record<ToolName, { read: boolean, run: (ctx: ToolContext, args: any) => Promise<ToolResult> }>}
 */
const OPS = {
  memory_search: { read: true, run: search },
  memory_list: { read: true, run: list },
  memory_get: { read: true, run: get },
  memory_related: { read: true, run: related },
  memory_store: { read: false, run: store },
  memory_update: { read: false, run: update },
  memory_delete: { read: false, run: remove },
};

/**
 * Runs a validated tool call (see `handleToolCall` in ./tools.js).
 * @param {import('./tools-common.js').ToolIndex} index
 * @param {ToolName} name
 * @param {ToolArgs} args
 * @param {import('./tools-common.js').ToolCallOptions} options
 * @returns {Promise<ToolResult>}
 */
export async function runTool(index, name, args, options) {
  const op = OPS[name];
  const pinned = options.namespace !== undefined;
  const ctx = {
    index,
    pinned,
    ns: pinned ? options.namespace : args.namespace,
    commit: Boolean(options.commit),
    onConflict: options.onConflict,
    tool: name,
    now: options.now ?? Date.now,
    // A host's cap on answer sizes (e.g. an HTTP response limit).
    /** @type {(asked: number | undefined, fallback: number) => number} */
    maxChars: (asked, fallback) => Math.min(asked ?? Math.min(fallback, options.maxChars ?? fallback), options.maxChars ?? Infinity),
    vectorField: options.vectorField,
    embedField: options.embedField,
  };
  // `repo:*` (a trailing `*`) selects every namespace starting with `repo:`:
  // a filter for search, list and delete by filter, not a namespace to
  // store in or to look ids up in.
  // A pinned namespace is one namespace, never a prefix (stores would go to
  // the literal name while reads spanned every match).
  if (pinned && (typeof ctx.ns !== 'string' || ctx.ns === '' || ctx.ns.endsWith('*'))) {
    throw fail('USAGE', `this server is pinned to namespace ${JSON.stringify(ctx.ns)}, which is not one namespace (empty or ending in *); restart it with one namespace`);
  }
  if (!pinned && ctx.ns?.endsWith('*') && !(name === 'memory_search' || name === 'memory_list' || (name === 'memory_delete' && args.id === undefined && args.ids === undefined))) {
    throw fail('USAGE', `"namespace": "${ctx.ns}" ends in * (every namespace starting with "${ctx.ns.slice(0, -1)}"): only memory_search, memory_list and memory_delete by filter take a prefix; give one namespace`);
  }
  // After an engine crash: the restarted engine, reloaded from storage.
  await index.ready?.();
  if (op.read) await options.beforeRead?.();
  return op.run(ctx, args);
}

