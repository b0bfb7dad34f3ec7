// What each memory tool does (definitions and argument checks: ./tools.js).
//
// Ids are per namespace. The engine keys documents by one global id, so a
// memory stored in namespace `ns` under tool id `x` gets the engine id
// `ns + SEP + x` (SEP is U+001F, which tool ids may not contain, so distinct
// (namespace, id) pairs never share a key). Without that, storing an id
// that another tenant uses would either overwrite their memory or tell the
// caller it exists. Documents added through the plain JS API (engine id
// `x`, namespace `ns`) are still found: lookups try `ns + SEP + x`, then
// `x` if that document is in `ns`. Results show the id without the prefix.
//
// Writes: with `options.commit`, each write tool call goes through
// `Memdex#update`: under the writer lock, on the latest committed state
// (another process, e.g. a second server on the same folder, may have
// committed), re-run on CONFLICT, committed before it answers, and dropped
// whole if it fails. Without `commit` (an in-memory index), a call that fails
// undoes its own changes. Either way an error means nothing was written.

/** @typedef {import('./tools.js').ToolResult} ToolResult */
/** @typedef {import('./tools.js').ToolName} ToolName */
/** @typedef {import('./tools.js').ToolCallOptions} ToolCallOptions */
/** @typedef {import('./index.js').Hit} Hit */
/** @typedef {{ type: string, to: string }} Link */
/** @typedef {{ from: string, type: string, hops: number }} Via */

/**
 * A document as the engine stores it: the default schema's fields, any
 * other field as it is.
 * @typedef {{ [field: string]: unknown, id?: string, namespace?: string, links?: Link[] }} StoredDoc
 */

/**
 * A memory's fields as a tool takes them (memory_store, memory_update).
 * @typedef {object} MemoryFields
 * @property {string} [id]
 * @property {string} [title]
 * @property {string} [text]
 * @property {string} [kind]
 * @property {string[]} [tags]
 * @property {string} [timestamp]
 * @property {Link[]} [links]
 * @property {number[]} [vector]
 */

/**
 * A tool call's arguments, valid against the tool's input schema
 * (./tools-defs.js); each tool reads its own.
 * @typedef {Omit<MemoryFields, 'kind'> & {
 *   namespace?: string, query?: string, kind?: string | string[], since?: string, until?: string,
 *   mode?: 'or' | 'and' | 'fallback', order?: string, sortBy?: string, limit?: number, maxChars?: number,
 *   budgetTokens?: number, cursor?: string, semantic?: 'hybrid' | 'vector' | 'off', expand?: { hops?: number, types?: string[], direction?: 'out' | 'in' | 'both' },
 *   ids?: string[], memories?: MemoryFields[], replace?: boolean, confirm?: boolean,
 *   hops?: number, types?: string[], direction?: 'out' | 'in' | 'both'
 * }} ToolArgs
 */

/**
 * What the tools need of an index: a `Memdex` (or an object with its
 * methods, sync or async: every call is awaited).
 * @typedef {object} ToolIndex
 * @property {(id: string, options?: import('./index.js').GetOptions) => StoredDoc | undefined | Promise<StoredDoc | undefined>} get
 * @property {(doc: StoredDoc) => unknown} add
 * @property {(id: string) => unknown} remove
 * @property {(query: string, options: import('./index.js').SearchOptions) => import('./index.js').SearchResults | Promise<import('./index.js').SearchResults>} search
 * @property {(id: string, options: import('./index.js').RelatedOptions) => Hit[] | Promise<Hit[]>} related
 * @property {<R>(fn: () => Promise<R>, options: { retries: number }) => Promise<R>} update
 * @property {() => Promise<void>} [ready]
 */

/**
 * One tool call's context (see `runTool`).
 * @typedef {object} ToolContext
 * @property {ToolIndex} index
 * @property {boolean} pinned
 * @property {string | undefined} ns the call's namespace (or prefix ending in *)
 * @property {boolean} commit
 * @property {ToolCallOptions['onConflict']} onConflict
 * @property {ToolName} tool
 * @property {() => number} now
 * @property {(asked: number | undefined, fallback: number) => number} maxChars
 * @property {string | false | undefined} vectorField the index's vector field (false: none; undefined: its only one)
 * @property {string | undefined} embedField the field the index's embedder fills (undefined: no embedder)
 */

/**
 * A memory as the tools show it.
 * @typedef {{ id: string, namespace?: string, title?: string, kind?: string, tags?: string[], timestamp?: string, links?: Link[] }} Memory
 */

/** Separates the namespace from the tool id in engine ids. */
export const SEP = '\u001f';
export const MAX_LISTED = 10000; // the engine's offset + limit bound
export const PREVIEW_CHARS = 200;

/**
 * An `isError` result: the code leads the text and is in `_meta`.
 * @param {string} code
 * @param {string} message
 * @param {{ problems?: string[], data?: import('./index.js').MemdexErrorData }} [extra]
 *   `data`: an engine error's `err.data`, as every other entrance gives it
 * @returns {ToolResult}
 */
export function failure(code, message, extra = {}) {
  /** @type {NonNullable<ToolResult['_meta']>} */
  const meta = { 'memdex/code': code };
  if (extra.problems) meta['memdex/problems'] = extra.problems;
  if (extra.data) meta['memdex/data'] = extra.data;
  return { content: [{ type: 'text', text: `${code}: ${message}` }], isError: true, _meta: meta };
}

/**
 * Thrown inside a tool to answer with an error result.
 * @param {string} code
 * @param {string} message
 */
export const fail = (code, message) => Object.assign(new Error(message), { toolResult: failure(code, message) });
/**
 * A successful result.
 * @param {string} text
 * @param {Record<string, unknown>} structuredContent
 * @returns {ToolResult}
 */
export const ok = (text, structuredContent) => ({ content: [{ type: 'text', text }], structuredContent, isError: false });

// ---- ids -------------------------------------------------------------------

/** @param {string | undefined} ns @param {string} id */
export const engineKey = (ns, id) => (ns === undefined ? id : `${ns}${SEP}${id}`);
/** @param {string} key @param {string | undefined} ns */
export const toolId = (key, ns) => (ns !== undefined && key.startsWith(ns + SEP) ? key.slice(ns.length + 1) : key);

/**
 * The stored memory `id` of the call's namespace: `{ key, doc }` or
 * undefined. `vectors`: the doc with its vectors (what a write keeps, and
 * an undo restores).
 * @param {ToolContext} ctx
 * @param {string} id
 * @param {boolean} [vectors]
 * @returns {Promise<{ key: string, doc: StoredDoc } | undefined>}
 */
export async function find(ctx, id, vectors = false) {
  const options = vectors ? { vectors } : undefined;
  if (ctx.ns === undefined) {
    // Not pinned and no namespace given: the engine id as it is.
    const doc = await ctx.index.get(id, options);
    return doc ? { key: id, doc } : undefined;
  }
  for (const key of [engineKey(ctx.ns, id), id]) {
    const doc = await ctx.index.get(key, options);
    if (doc && doc.namespace === ctx.ns) return { key, doc };
  }
  return undefined;
}

let counter = 0;
/** @param {() => number} now */
export const newId = (now) =>
  `mem-${now().toString(36)}-${(counter++ % 1296).toString(36).padStart(2, '0')}${Math.random().toString(36).slice(2, 6)}`;

// ---- time ------------------------------------------------------------------

/** @type {Record<string, number>} */
const UNITS = { m: 60e3, min: 60e3, h: 3600e3, d: 86400e3, w: 7 * 86400e3 };
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * `since`/`until` as a filter bound: a span back from now ("7d", the tools'
 * own form) becomes epoch ms; anything else goes to the engine as written,
 * which reads ISO dates and times and is the one judge of them (a bad date
 * is its SCHEMA error, the same message every memdex entrance gives).
 * @param {string} value
 * @param {'since' | 'until'} name
 * @param {() => number} now
 * @returns {string | number}
 */
export function timeBound(value, name, now) {
  const rel = /^(\d+(?:\.\d+)?)\s*(min|m|h|d|w)$/i.exec(value.trim());
  if (rel) return now() - Number(rel[1]) * UNITS[rel[2].toLowerCase()];
  // `until` a date alone means through the end of that day: the next day.
  if (name === 'until' && DATE_ONLY.test(value.trim())) {
    const next = Date.parse(value.trim()) + 86400e3;
    if (!Number.isNaN(next)) return new Date(next).toISOString().slice(0, 10);
  }
  return value;
}

/**
 * A stored timestamp: as given (the engine checks it), or now.
 * @param {string | undefined} value
 * @param {() => number} now
 */
export function timestamp(value, now) {
  return value === undefined ? new Date(now()).toISOString() : value;
}

// ---- filters ---------------------------------------------------------------

/**
 * The engine filter of a call's kind/tags/since/until (and namespace).
 * @param {ToolContext} ctx
 * @param {ToolArgs} args
 * @returns {import('./index.js').Filter}
 */
export function filterOf(ctx, args) {
  /** @type {import('./index.js').Filter} */
  const filter = {};
  if (ctx.ns !== undefined) filter.namespace = ctx.ns;
  if (args.kind !== undefined) filter.kind = args.kind;
  if (args.tags !== undefined) filter.tags = args.tags;
  if (args.since !== undefined || args.until !== undefined) {
    /** @type {import('./index.js').RangeFilter} */
    const range = {};
    if (args.since !== undefined) range.gte = timeBound(args.since, 'since', ctx.now);
    if (args.until !== undefined) range.lt = timeBound(args.until, 'until', ctx.now);
    filter.timestamp = range;
  }
  return filter;
}

/**
 * The filters of a call in words, for answers.
 * @param {ToolArgs} args
 */
export function describeFilter(args) {
  const parts = [];
  if (args.kind !== undefined) parts.push(`kind ${[args.kind].flat().join(' or ')}`);
  if (args.tags !== undefined) parts.push(`tagged ${args.tags.join(' or ')}`);
  if (args.since !== undefined) parts.push(`since ${args.since}`);
  if (args.until !== undefined) parts.push(`until ${args.until}`);
  return parts.join(', ');
}

// ---- memories out ----------------------------------------------------------

/**
 * A stored document as the tools show it (no engine prefix, tidy types).
 * @param {ToolContext} ctx
 * @param {string} key
 * @param {StoredDoc} doc
 * @returns {Memory}
 */
export function memoryOf(ctx, key, doc) {
  /** @type {Memory} */
  const m = { id: toolId(key, doc.namespace) };
  if (!ctx.pinned && doc.namespace !== undefined) m.namespace = doc.namespace;
  if (doc.title !== undefined) m.title = String(doc.title);
  if (doc.kind !== undefined) m.kind = [doc.kind].flat().join(', ');
  if (doc.tags !== undefined) m.tags = [doc.tags].flat().map(String);
  if (doc.timestamp !== undefined) {
    const ms = typeof doc.timestamp === 'number' ? doc.timestamp : Date.parse(String(doc.timestamp));
    // Past the JS date range (1e20) there is no ISO form: shown as stored.
    m.timestamp = Number.isNaN(new Date(ms).getTime()) ? String(doc.timestamp) : new Date(ms).toISOString();
  }
  // Links hold engine ids (see docOf); shown as tool ids.
  if (Array.isArray(doc.links)) m.links = doc.links.map((l) => ({ type: l.type, to: toolId(l.to, doc.namespace) }));
  return m;
}

/** @param {Memory} m */
export function metaLine(m) {
  const parts = [];
  if (m.kind) parts.push(m.kind);
  if (m.tags?.length) parts.push(`tags: ${m.tags.join(', ')}`);
  if (m.timestamp) parts.push(m.timestamp);
  if (m.namespace) parts.push(`namespace: ${m.namespace}`);
  return parts.length ? ` (${parts.join('; ')})` : '';
}

/** @param {Memory} m @param {string} text */
export function fullText(m, text) {
  const lines = [`[${m.id}]${m.title ? ` ${m.title}` : ''}${metaLine(m)}`];
  for (const l of m.links ?? []) lines.push(`  ${l.type} -> ${l.to}`);
  return `${lines.join('\n')}\n${text}`;
}

/**
 * `s` cut to about `n` chars at a word boundary, with `…` when cut.
 * @param {string} s
 * @param {number} n
 */
export function clip(s, n) {
  s = s.trim();
  if (s.length <= n) return s;
  const cut = s.slice(0, Math.max(1, n - 1));
  const space = cut.lastIndexOf(' ');
  return `${space > n * 0.6 ? cut.slice(0, space) : cut}…`;
}

/** @type {Record<string, string>} */
const ENTITIES = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
/** @param {string} s */
export const unescapeHtml = (s) => s.replace(/&(?:amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e]);

/**
 * `id` xor `ids`, as a list.
 * @param {ToolArgs} args
 * @param {string} tool
 * @param {boolean} [optional]
 * @returns {string[] | undefined}
 */
export function idsOf(args, tool, optional = false) {
  if (args.id !== undefined && args.ids !== undefined) throw fail('USAGE', `${tool}: give either "id" or "ids", not both`);
  if (args.id === undefined && args.ids === undefined) {
    if (optional) return undefined;
    throw fail('USAGE', `${tool}: give "id" (one memory) or "ids" (several)`);
  }
  return args.ids ?? [/** @type {string} */ (args.id)];
}

/**
 * The search options of a query `vector` (none without one).
 * @param {ToolContext} ctx
 * @param {number[] | undefined} vector
 * @returns {{ vector?: number[], vectorField?: string }}
 */
export function vectorOptions(ctx, vector) {
  if (vector === undefined) return {};
  if (ctx.vectorField === false) throw noVectorField();
  return typeof ctx.vectorField === 'string' ? { vector, vectorField: ctx.vectorField } : { vector };
}

export const noVectorField = () =>
  fail('USAGE', 'this memory index has no vector field, so "vector" cannot be used here; search with words, or store without vector');

/** @param {ToolContext} ctx @param {string[]} ids */
export const notFound = (ctx, ids) =>
  `No memory with id ${ids.map((id) => `"${id}"`).join(', ')}${
    !ctx.pinned && ctx.ns === undefined ? ' (memories in a namespace need namespace as well)' : ''
  }. Find ids with memory_search or memory_list.`;

/** @param {Via} via @param {string | undefined} ns @returns {Via} */
export const viaOf = (via, ns) => ({ from: toolId(via.from, ns), type: via.type, hops: via.hops });

/**
 * `options` for tools on `index`: a lazily opened index only reads, so it
 * serves the read tools (as `readOnly`).
 * @param {object} index
 * @param {ToolCallOptions} options
 * @returns {ToolCallOptions}
 */
export function withIndex(index, options) {
  return 'lazy' in index && index.lazy === true ? { ...options, readOnly: true } : options;
}
