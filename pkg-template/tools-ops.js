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

/** Separates the namespace from the tool id in engine ids. */
export const SEP = '\u001f';
const MAX_ATTEMPTS = 5;
const MAX_LISTED = 10000; // the engine's offset + limit bound
const PREVIEW_CHARS = 200;

/** An `isError` result: the code leads the text and is in `_meta`. */
export function failure(code, message, extra = {}) {
  const meta = { 'memdex/code': code };
  if (extra.problems) meta['memdex/problems'] = extra.problems;
  return { content: [{ type: 'text', text: `${code}: ${message}` }], isError: true, _meta: meta };
}

// Thrown inside a tool to answer with an error result.
const fail = (code, message) => Object.assign(new Error(message), { toolResult: failure(code, message) });
const ok = (text, structuredContent) => ({ content: [{ type: 'text', text }], structuredContent, isError: false });

const OPS = {
  memory_search: { read: true, run: search },
  memory_list: { read: true, run: list },
  memory_get: { read: true, run: get },
  memory_related: { read: true, run: related },
  memory_store: { read: false, run: store },
  memory_update: { read: false, run: update },
  memory_delete: { read: false, run: remove },
};

/** Runs a validated tool call (see `handleToolCall` in ./tools.js). */
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
    maxChars: (asked, fallback) => Math.min(asked ?? Math.min(fallback, options.maxChars ?? fallback), options.maxChars ?? Infinity),
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

// ---- ids -------------------------------------------------------------------

const engineKey = (ns, id) => (ns === undefined ? id : `${ns}${SEP}${id}`);
const toolId = (key, ns) => (ns !== undefined && key.startsWith(ns + SEP) ? key.slice(ns.length + 1) : key);

/** The stored memory `id` of the call's namespace: `{ key, doc }` or undefined. */
async function find(ctx, id) {
  if (ctx.ns === undefined) {
    // Not pinned and no namespace given: the engine id as it is.
    const doc = await ctx.index.get(id);
    return doc && { key: id, doc };
  }
  for (const key of [engineKey(ctx.ns, id), id]) {
    const doc = await ctx.index.get(key);
    if (doc && doc.namespace === ctx.ns) return { key, doc };
  }
  return undefined;
}

let counter = 0;
const newId = (now) =>
  `mem-${now().toString(36)}-${(counter++ % 1296).toString(36).padStart(2, '0')}${Math.random().toString(36).slice(2, 6)}`;

// ---- time ------------------------------------------------------------------

const UNITS = { m: 60e3, min: 60e3, h: 3600e3, d: 86400e3, w: 7 * 86400e3 };
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * `since`/`until` as a filter bound: a span back from now ("7d", the tools'
 * own form) becomes epoch ms; anything else goes to the engine as written,
 * which reads ISO dates and times and is the one judge of them (a bad date
 * is its SCHEMA error, the same message every memdex entrance gives).
 */
function timeBound(value, name, now) {
  const rel = /^(\d+(?:\.\d+)?)\s*(min|m|h|d|w)$/i.exec(value.trim());
  if (rel) return now() - Number(rel[1]) * UNITS[rel[2].toLowerCase()];
  // `until` a date alone means through the end of that day: the next day.
  if (name === 'until' && DATE_ONLY.test(value.trim())) {
    const next = Date.parse(value.trim()) + 86400e3;
    if (!Number.isNaN(next)) return new Date(next).toISOString().slice(0, 10);
  }
  return value;
}

/** A stored timestamp: as given (the engine checks it), or now. */
function timestamp(value, now) {
  return value === undefined ? new Date(now()).toISOString() : value;
}

// ---- filters ---------------------------------------------------------------

/** The engine filter of a call's kind/tags/since/until (and namespace). */
function filterOf(ctx, args) {
  const filter = {};
  if (ctx.ns !== undefined) filter.namespace = ctx.ns;
  if (args.kind !== undefined) filter.kind = args.kind;
  if (args.tags !== undefined) filter.tags = args.tags;
  if (args.since !== undefined || args.until !== undefined) {
    const range = {};
    if (args.since !== undefined) range.gte = timeBound(args.since, 'since', ctx.now);
    if (args.until !== undefined) range.lt = timeBound(args.until, 'until', ctx.now);
    filter.timestamp = range;
  }
  return filter;
}

function describeFilter(args) {
  const parts = [];
  if (args.kind !== undefined) parts.push(`kind ${[args.kind].flat().join(' or ')}`);
  if (args.tags !== undefined) parts.push(`tagged ${args.tags.join(' or ')}`);
  if (args.since !== undefined) parts.push(`since ${args.since}`);
  if (args.until !== undefined) parts.push(`until ${args.until}`);
  return parts.join(', ');
}

// ---- memories out ----------------------------------------------------------

/** A stored document as the tools show it (no engine prefix, tidy types). */
function memoryOf(ctx, key, doc) {
  const m = { id: toolId(key, doc.namespace) };
  if (!ctx.pinned && doc.namespace !== undefined) m.namespace = doc.namespace;
  if (doc.title !== undefined) m.title = String(doc.title);
  if (doc.kind !== undefined) m.kind = [doc.kind].flat().join(', ');
  if (doc.tags !== undefined) m.tags = [doc.tags].flat().map(String);
  if (doc.timestamp !== undefined) {
    const ms = typeof doc.timestamp === 'number' ? doc.timestamp : Date.parse(doc.timestamp);
    // Past the JS date range (1e20) there is no ISO form: shown as stored.
    m.timestamp = Number.isNaN(new Date(ms).getTime()) ? String(doc.timestamp) : new Date(ms).toISOString();
  }
  // Links hold engine ids (see docOf); shown as tool ids.
  if (Array.isArray(doc.links)) m.links = doc.links.map((l) => ({ type: l.type, to: toolId(l.to, doc.namespace) }));
  return m;
}

function metaLine(m) {
  const parts = [];
  if (m.kind) parts.push(m.kind);
  if (m.tags?.length) parts.push(`tags: ${m.tags.join(', ')}`);
  if (m.timestamp) parts.push(m.timestamp);
  if (m.namespace) parts.push(`namespace: ${m.namespace}`);
  return parts.length ? ` (${parts.join('; ')})` : '';
}

function fullText(m, text) {
  const lines = [`[${m.id}]${m.title ? ` ${m.title}` : ''}${metaLine(m)}`];
  for (const l of m.links ?? []) lines.push(`  ${l.type} -> ${l.to}`);
  return `${lines.join('\n')}\n${text}`;
}

/** `s` cut to about `n` chars at a word boundary, with `…` when cut. */
function clip(s, n) {
  s = s.trim();
  if (s.length <= n) return s;
  const cut = s.slice(0, Math.max(1, n - 1));
  const space = cut.lastIndexOf(' ');
  return `${space > n * 0.6 ? cut.slice(0, space) : cut}…`;
}

const ENTITIES = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
const unescapeHtml = (s) => s.replace(/&(?:amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e]);

// ---- read tools ------------------------------------------------------------

async function search(ctx, args) {
  if (args.query.trim() === '') {
    throw fail('USAGE', '"query" is blank; give words to look for, or use memory_list to browse memories');
  }
  const limit = args.limit ?? 8;
  if (args.budgetTokens !== undefined && args.maxChars !== undefined) {
    throw fail('USAGE', 'give either "maxChars" or "budgetTokens", not both');
  }
  // Tokens are counted as ceil(chars / 4); the note lines added below the
  // hits fit in the 300 characters kept back.
  const maxChars =
    args.budgetTokens !== undefined ? Math.max(100, args.budgetTokens * 4 - 300) : ctx.maxChars(args.maxChars, 4000);
  const order = args.order ?? 'relevance';
  // Snippets sized so that `limit` hits roughly fill the budget.
  const snippetLength = Math.max(80, Math.min(600, Math.floor(maxChars / limit) - 80));
  const { hits: found, mode, total: counted, totalExact } = await ctx.index.search(args.query, {
    limit,
    // Absent: the engine's default mode (the library's and the Worker's too).
    mode: args.mode,
    // Agents misspell: a word no memory contains matches its spellings one
    // or two edits away ('auto' leaves words the index has alone).
    fuzzy: 'auto',
    filter: filterOf(ctx, args),
    highlight: { preTag: '', postTag: '', snippetLength },
    sort: order === 'relevance' ? undefined : { field: 'timestamp', order: order === 'newest' ? 'desc' : 'asc' },
    expand: args.expand,
  });
  // Links never lead out of a pinned namespace (expand follows them).
  const hits = ctx.pinned ? found.filter((h) => h.namespace === ctx.ns) : found;
  // Ranked totals past the page are lower bounds: only exact ones are shown.
  const total = totalExact ? counted : undefined;
  const out = [];
  const lines = [];
  let used = 0;
  let truncated = false;
  for (const hit of hits) {
    const m = memoryOf(ctx, hit.id, { ...hit.fields, namespace: hit.namespace });
    const text = String(hit.fields.text ?? '');
    let snippet = hit.snippets?.text !== undefined ? unescapeHtml(hit.snippets.text) : clip(text, snippetLength);
    const header = `${out.length + 1}. [${m.id}]${m.title ? ` ${m.title}` : ''}${metaLine(m)} score ${hit.score.toFixed(2)}`;
    const room = maxChars - used - header.length - 5;
    if (room < 40 && out.length > 0) {
      truncated = true;
      break;
    }
    if (snippet.length > room) {
      snippet = clip(snippet, Math.max(40, room));
      truncated = true;
    }
    const snippetTruncated = snippet !== text.trim();
    lines.push(`${header}\n   ${snippet}`);
    used += header.length + snippet.length + 5;
    /** @type {Record<string, unknown>} */
    const found = { ...m, score: hit.score, snippet, snippetTruncated };
    if (hit.via) found.via = viaOf(hit.via, hit.namespace);
    out.push(found);
  }
  const omitted = hits.length - out.length;
  const structured = { query: args.query, mode, order, hits: out, returned: out.length, truncated, omitted, maxChars };
  if (total !== undefined) structured.total = total;
  if (out.length === 0) {
    const scope = describeFilter(args);
    return ok(
      `No memories match "${args.query}"${scope ? ` (${scope})` : ''}. Try other or fewer words, fewer filters, or memory_list to browse.`,
      structured,
    );
  }
  const how = `${mode} mode${order === 'relevance' ? '' : `, ${order} first`}`;
  let text = `${out.length}${total !== undefined ? ` of ${total}` : ''} memor${out.length === 1 ? 'y' : 'ies'} for "${args.query}" (${how}):\n\n${lines.join('\n')}`;
  if (omitted > 0) text += `\n\n[${omitted} more hit${omitted === 1 ? '' : 's'} omitted to fit the ${maxChars}-character budget; narrow the search or raise maxChars]`;
  else if (truncated) text += `\n\n[snippets shortened to fit the ${maxChars}-character budget]`;
  if (out.some((h) => h.snippetTruncated)) text += '\n[snippets are excerpts; memory_get returns the full text]';
  if (args.budgetTokens !== undefined) {
    structured.usedTokens = Math.ceil(text.length / 4);
    if (structured.usedTokens > args.budgetTokens) throw fail('INTERNAL', 'answer over budgetTokens'); // cannot happen: see maxChars above
  }
  return ok(text, structured);
}

const viaOf = (via, ns) => ({ from: toolId(via.from, ns), type: via.type, hops: via.hops });

async function related(ctx, args) {
  const found = await find(ctx, args.id);
  if (!found) throw fail('NOT_FOUND', notFound(ctx, [args.id]));
  const hits = await ctx.index.related(found.key, {
    hops: args.hops,
    types: args.types,
    direction: args.direction,
    limit: MAX_LISTED,
  });
  // Within the call's namespace only (links never cross tenants in answers).
  const memories = [];
  const lines = [];
  for (const hit of hits) {
    if (ctx.ns !== undefined && hit.namespace !== ctx.ns) continue;
    if (memories.length === (args.limit ?? 10)) break;
    const m = memoryOf(ctx, hit.id, { ...hit.fields, namespace: hit.namespace });
    const preview = clip(String(hit.fields.text ?? ''), PREVIEW_CHARS);
    const via = viaOf(hit.via, hit.namespace);
    memories.push({ ...m, preview, via });
    lines.push(`${memories.length}. [${m.id}]${m.title ? ` ${m.title}` : ''}${metaLine(m)} via ${via.type} from ${via.from} (${via.hops} hop${via.hops === 1 ? '' : 's'})\n   ${preview}`);
  }
  const text = memories.length
    ? `${memories.length} memor${memories.length === 1 ? 'y' : 'ies'} linked to "${args.id}":\n\n${lines.join('\n')}`
    : `No memories linked to "${args.id}"${args.types ? ` by ${args.types.join(' or ')}` : ''} (direction ${args.direction ?? 'out'}). Try direction "both" or more hops.`;
  return ok(text, { id: args.id, memories, returned: memories.length });
}

async function list(ctx, args) {
  const sortBy = args.sortBy ?? 'timestamp';
  const order = args.order ?? (sortBy === 'timestamp' ? 'desc' : 'asc');
  const limit = args.limit ?? 20;
  const maxChars = ctx.maxChars(args.maxChars, 4000);
  const filter = filterOf(ctx, args);
  // The cursor is the position plus a fingerprint of what is listed, so a
  // cursor reused with other filters is caught instead of skipping items.
  const listing = fingerprint(JSON.stringify([filter, sortBy, order]));
  const offset = args.cursor === undefined ? 0 : readCursor(args.cursor, listing);
  if (offset + limit > MAX_LISTED) {
    throw fail('USAGE', `lists stop at ${MAX_LISTED} memories; narrow the listing with since/until, kind or tags`);
  }
  const { hits, total } = await ctx.index.search('', { filter, sort: { field: sortBy, order }, limit, offset });
  const out = [];
  const lines = [];
  let used = 0;
  for (const hit of hits) {
    const m = memoryOf(ctx, hit.id, { ...hit.fields, namespace: hit.namespace });
    const preview = clip(String(hit.fields.text ?? ''), PREVIEW_CHARS);
    const line = `${offset + out.length + 1}. [${m.id}]${m.title ? ` ${m.title}` : ''}${metaLine(m)}\n   ${preview}`;
    if (used + line.length > maxChars && out.length > 0) break;
    used += line.length + 1;
    lines.push(line);
    out.push({ ...m, preview });
  }
  const truncated = out.length < hits.length;
  const next = offset + out.length;
  const structured = { memories: out, returned: out.length, total, sortBy, order, truncated };
  if (next < total) structured.nextCursor = makeCursor(next, listing);
  const scope = describeFilter(args);
  if (out.length === 0) {
    return ok(
      total === 0
        ? `No memories${scope ? ` ${scope}` : ' stored yet'}.`
        : `No memories past position ${offset} (${total} in all); start again without cursor.`,
      structured,
    );
  }
  const orderText = sortBy === 'timestamp' ? (order === 'desc' ? 'newest first' : 'oldest first') : `by ${sortBy} ${order}`;
  let text = `Memories ${offset + 1}-${next} of ${total}${scope ? ` (${scope})` : ''}, ${orderText}:\n\n${lines.join('\n')}`;
  if (structured.nextCursor) {
    text += `\n\n[${total - next} more${truncated ? ' (this page was cut to fit maxChars)' : ''}: call memory_list with cursor "${structured.nextCursor}" and the same filters]`;
  }
  return ok(text, structured);
}

function fingerprint(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(36);
}
const makeCursor = (offset, listing) => `${offset.toString(36)}.${listing}`;
function readCursor(cursor, listing) {
  const m = /^([0-9a-z]+)\.([0-9a-z]+)$/.exec(cursor);
  if (!m) throw fail('USAGE', '"cursor" is not a nextCursor from memory_list; start without cursor');
  if (m[2] !== listing) {
    throw fail('USAGE', '"cursor" belongs to a listing with other filters or order; repeat the same filters, or start without cursor');
  }
  return parseInt(m[1], 36);
}

/** `id` xor `ids`, as a list. */
function idsOf(args, tool, optional = false) {
  if (args.id !== undefined && args.ids !== undefined) throw fail('USAGE', `${tool}: give either "id" or "ids", not both`);
  if (args.id === undefined && args.ids === undefined) {
    if (optional) return undefined;
    throw fail('USAGE', `${tool}: give "id" (one memory) or "ids" (several)`);
  }
  return args.ids ?? [args.id];
}

const notFound = (ctx, ids) =>
  `No memory with id ${ids.map((id) => `"${id}"`).join(', ')}${
    !ctx.pinned && ctx.ns === undefined ? ' (memories in a namespace need namespace as well)' : ''
  }. Find ids with memory_search or memory_list.`;

async function get(ctx, args) {
  const ids = idsOf(args, 'memory_get');
  const memories = [];
  const missing = [];
  const texts = [];
  for (const id of new Set(ids)) {
    const found = await find(ctx, id);
    if (!found) {
      missing.push(id);
      continue;
    }
    const m = { ...memoryOf(ctx, found.key, found.doc), text: String(found.doc.text ?? '') };
    memories.push(m);
    texts.push(fullText(m, m.text));
  }
  if (memories.length === 0) throw fail('NOT_FOUND', notFound(ctx, missing));
  let text = texts.join('\n\n---\n\n');
  if (missing.length) text += `\n\n[not found: ${missing.join(', ')}]`;
  return ok(text, { memories, missing });
}

// ---- write tools -----------------------------------------------------------

/**
 * Applies `apply(undo)`: with `ctx.commit` through `index.update` (see the
 * module comment), else in place, undoing the recorded `{ key, prev }`
 * writes when it fails.
 */
async function write(ctx, apply) {
  const { index } = ctx;
  if (ctx.commit) {
    let runs = 0;
    return index.update(async () => {
      if (runs++ > 0) ctx.onConflict?.(ctx.tool, runs - 1);
      return applyOrUndo(index, apply);
    }, { retries: MAX_ATTEMPTS });
  }
  return applyOrUndo(index, apply);
}

/** Runs `apply`, undoing its writes if it fails (a batch is all or nothing). */
async function applyOrUndo(index, apply) {
  const undo = [];
  try {
    return await apply(undo);
  } catch (err) {
    await rollback(index, undo);
    throw err;
  }
}

async function rollback(index, undo) {
  for (const { key, prev } of undo.reverse()) {
    try {
      if (prev) await index.add(prev);
      else await index.remove(key);
    } catch {
      // Best effort: the engine refused the undo too; reload() would drop it.
    }
  }
}

const FIELDS = ['title', 'text', 'kind', 'tags', 'timestamp', 'links'];

/** The document to store for tool fields `m` under engine id `key`. */
function docOf(ctx, key, m, ns = ctx.ns) {
  const doc = { id: key };
  if (ns !== undefined) doc.namespace = ns;
  for (const f of FIELDS) if (m[f] !== undefined) doc[f] = m[f];
  // Links point at engine ids, so that expand and memory_related follow
  // them within the namespace.
  if (Array.isArray(m.links)) doc.links = m.links.map((l) => ({ type: l.type, to: engineKey(ns, l.to) }));
  doc.timestamp = timestamp(m.timestamp, ctx.now);
  return doc;
}

async function store(ctx, args) {
  const single = FIELDS.some((f) => args[f] !== undefined) || args.id !== undefined;
  if (args.memories !== undefined && single) {
    throw fail('USAGE', 'give one memory (text, title, ...) or several in "memories", not both');
  }
  if (args.memories === undefined && args.text === undefined) {
    throw fail('USAGE', '"text" is required (or give several memories in "memories")');
  }
  const items = (args.memories ?? [args]).map((m) => ({ ...m, id: m.id ?? newId(ctx.now) }));
  const seen = new Set();
  for (const m of items) {
    if (seen.has(m.id)) throw fail('USAGE', `id "${m.id}" appears twice in this call`);
    seen.add(m.id);
  }
  const replace = args.replace === true;
  const stored = await write(ctx, async (undo) => {
    const existing = [];
    for (const m of items) {
      const found = await find(ctx, m.id);
      if (found && !replace) {
        throw fail(
          'EXISTS',
          `a memory with id "${m.id}" already exists${found.doc.title ? ` ("${found.doc.title}")` : ''}. ` +
            'Pass replace: true to overwrite it, use memory_update to change some of its fields, or omit id to store a new memory.',
        );
      }
      existing.push(found);
    }
    const out = [];
    for (const [i, m] of items.entries()) {
      const found = existing[i];
      const key = found?.key ?? engineKey(ctx.ns, m.id);
      undo.push({ key, prev: found?.doc });
      // A replaced memory keeps its namespace (unpinned calls may omit it).
      await ctx.index.add(docOf(ctx, key, m, found ? found.doc.namespace : ctx.ns));
      out.push({ id: m.id, replaced: Boolean(found) });
    }
    return out;
  });
  const names = stored.map((s, i) => `"${s.id}"${items[i].title ? ` (${items[i].title})` : ''}${s.replaced ? ' [replaced]' : ''}`);
  return ok(`Stored ${stored.length} memor${stored.length === 1 ? 'y' : 'ies'}: ${names.join(', ')}.`, {
    stored,
    count: stored.length,
  });
}

async function update(ctx, args) {
  const changed = FIELDS.filter((f) => args[f] !== undefined);
  if (changed.length === 0) {
    throw fail('USAGE', `give at least one field to change: ${FIELDS.join(', ')}`);
  }
  const memory = await write(ctx, async (undo) => {
    const found = await find(ctx, args.id);
    if (!found) throw fail('NOT_FOUND', notFound(ctx, [args.id]));
    const doc = { ...found.doc, id: found.key };
    for (const f of changed) doc[f] = args[f];
    undo.push({ key: found.key, prev: found.doc });
    await ctx.index.add(doc);
    return { ...memoryOf(ctx, found.key, doc), text: String(doc.text ?? '') };
  });
  return ok(`Updated ${changed.join(', ')} of memory "${memory.id}":\n\n${fullText(memory, memory.text)}`, { memory, changed });
}

async function remove(ctx, args) {
  const ids = idsOf(args, 'memory_delete', true);
  const byFilter = ['kind', 'tags', 'since', 'until'].some((f) => args[f] !== undefined);
  if (ids && byFilter) throw fail('USAGE', 'delete either by "ids" or by a filter (kind, tags, since, until), not both');
  if (ids) return removeIds(ctx, ids);
  if (!byFilter && (ctx.pinned || args.namespace === undefined)) {
    throw fail('USAGE', 'give "id"/"ids", or a filter (kind, tags, since, until) to delete by, with confirm: true');
  }
  return removeWhere(ctx, args);
}

async function removeIds(ctx, ids) {
  const result = await write(ctx, async (undo) => {
    const deleted = [];
    const missing = [];
    for (const id of new Set(ids)) {
      const found = await find(ctx, id);
      if (!found) {
        missing.push(id);
        continue;
      }
      undo.push({ key: found.key, prev: found.doc });
      await ctx.index.remove(found.key);
      deleted.push(id);
    }
    return { deleted, missing };
  });
  if (result.deleted.length === 0) throw fail('NOT_FOUND', `${notFound(ctx, result.missing)} Nothing was deleted.`);
  let text = `Deleted ${result.deleted.length} memor${result.deleted.length === 1 ? 'y' : 'ies'}: ${result.deleted.join(', ')}.`;
  if (result.missing.length) text += ` Not found: ${result.missing.join(', ')}.`;
  return ok(text, { deleted: result.deleted.length, ids: result.deleted, missing: result.missing, confirmed: true });
}

async function removeWhere(ctx, args) {
  const filter = filterOf(ctx, args);
  const scope = describeFilter(args) || `namespace ${ctx.ns}`;
  if (args.confirm !== true) {
    const { hits, total } = await ctx.index.search('', { filter, sort: { field: 'timestamp', order: 'desc' }, limit: 10 });
    const sample = hits.map((h) => toolId(h.id, h.namespace));
    const text =
      total === 0
        ? `No memories match (${scope}); nothing would be deleted.`
        : `Would delete ${total} memor${total === 1 ? 'y' : 'ies'} (${scope}), e.g. ${hits
            .map((h) => `"${toolId(h.id, h.namespace)}"${h.fields.title ? ` (${h.fields.title})` : ''}`)
            .join(', ')}${total > hits.length ? ', ...' : ''}. Nothing was deleted: call memory_delete again with the same filter and confirm: true to delete them.`;
    return ok(text, { deleted: 0, ids: sample, matched: total, confirmed: false });
  }
  const result = await write(ctx, async (undo) => {
    const { hits, total } = await ctx.index.search('', { filter, limit: MAX_LISTED });
    if (total > MAX_LISTED) {
      throw fail('USAGE', `${total} memories match; delete at most ${MAX_LISTED} at a time (narrow the filter with since/until)`);
    }
    const deleted = [];
    for (const hit of hits) {
      const prev = { ...hit.fields, id: hit.id };
      if (hit.namespace !== undefined) prev.namespace = hit.namespace;
      undo.push({ key: hit.id, prev });
      await ctx.index.remove(hit.id);
      deleted.push(toolId(hit.id, hit.namespace));
    }
    return deleted;
  });
  const text = result.length
    ? `Deleted ${result.length} memor${result.length === 1 ? 'y' : 'ies'} (${scope}).`
    : `No memories match (${scope}); nothing was deleted.`;
  return ok(text, { deleted: result.length, ids: result, matched: result.length, confirmed: true });
}
