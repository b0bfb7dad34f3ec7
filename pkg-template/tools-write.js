// The write tools: memory_store, memory_update, memory_delete (see the
// write rules in ./tools-common.js).
import {
  MAX_LISTED, describeFilter, engineKey, fail, filterOf, find, fullText, idsOf, memoryOf, newId, noVectorField, notFound, ok,
  timestamp, toolId,
} from './tools-common.js';

/** @typedef {import('./tools-common.js').ToolContext} ToolContext */
/** @typedef {import('./tools-common.js').ToolArgs} ToolArgs */
/** @typedef {import('./tools-common.js').ToolIndex} ToolIndex */
/** @typedef {import('./tools-common.js').ToolResult} ToolResult */
/** @typedef {import('./tools-common.js').StoredDoc} StoredDoc */
/** @typedef {import('./tools-common.js').MemoryFields} MemoryFields */
/** @typedef {{ key: string, prev: StoredDoc | undefined }[]} Undo what to restore: each key's previous document (none: remove it) */

const MAX_ATTEMPTS = 5;

/**
 * Applies `apply(undo)`: with `ctx.commit` through `index.update` (see the
 * module comment), else in place, undoing the recorded `{ key, prev }`
 * writes when it fails.
 * @template T
 * @param {ToolContext} ctx
 * @param {(undo: Undo) => Promise<T>} apply
 * @returns {Promise<T>}
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

/**
 * Runs `apply`, undoing its writes if it fails (a batch is all or nothing).
 * @template T
 * @param {ToolIndex} index
 * @param {(undo: Undo) => Promise<T>} apply
 * @returns {Promise<T>}
 */
async function applyOrUndo(index, apply) {
  /** @type {Undo} */
  const undo = [];
  try {
    return await apply(undo);
  } catch (err) {
    await rollback(index, undo);
    throw err;
  }
}

/** @param {ToolIndex} index @param {Undo} undo */
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

/** @type {(keyof MemoryFields)[]} the fields a memory may carry, `vector` aside */
const FIELDS = ['title', 'text', 'kind', 'tags', 'timestamp', 'links'];

/**
 * A memory's `vector` as the index's vector field of `doc`.
 * @param {ToolContext} ctx
 * @param {StoredDoc} doc
 * @param {number[] | undefined} vector
 */
function putVector(ctx, doc, vector) {
  if (vector === undefined) return;
  if (ctx.vectorField === false) throw noVectorField();
  doc[ctx.vectorField ?? 'vector'] = vector;
}

/**
 * The document to store for tool fields `m` under engine id `key`.
 * @param {ToolContext} ctx
 * @param {string} key
 * @param {MemoryFields} m
 * @param {string | undefined} [ns]
 * @returns {StoredDoc}
 */
function docOf(ctx, key, m, ns = ctx.ns) {
  /** @type {StoredDoc} */
  const doc = { id: key };
  if (ns !== undefined) doc.namespace = ns;
  for (const f of FIELDS) if (m[f] !== undefined) doc[/** @type {string} */ (f)] = m[f];
  putVector(ctx, doc, m.vector);
  // Links point at engine ids, so that expand and memory_related follow
  // them within the namespace.
  if (Array.isArray(m.links)) doc.links = m.links.map((l) => ({ type: l.type, to: engineKey(ns, l.to) }));
  doc.timestamp = timestamp(m.timestamp, ctx.now);
  return doc;
}

/**
 * @param {ToolContext} ctx
 * @param {ToolArgs} args
 * @returns {Promise<ToolResult>}
 */
export async function store(ctx, args) {
  const single = [...FIELDS, 'vector'].some((f) => args[/** @type {keyof ToolArgs} */ (f)] !== undefined) || args.id !== undefined;
  if (args.memories !== undefined && single) {
    throw fail('USAGE', 'give one memory (text, title, ...) or several in "memories", not both');
  }
  if (args.memories === undefined && args.text === undefined) {
    throw fail('USAGE', '"text" is required (or give several memories in "memories")');
  }
  const items = (args.memories ?? [/** @type {MemoryFields} */ (args)]).map((m) => ({ ...m, id: m.id ?? newId(ctx.now) }));
  const seen = new Set();
  for (const m of items) {
    if (seen.has(m.id)) throw fail('USAGE', `id "${m.id}" appears twice in this call`);
    seen.add(m.id);
  }
  const replace = args.replace === true;
  await embedMemories(ctx, items);
  const stored = await write(ctx, async (undo) => {
    /** @type {({ key: string, doc: StoredDoc } | undefined)[]} */
    const existing = [];
    for (const m of items) {
      const found = await find(ctx, m.id, true);
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

/**
 * With an embedder: the vectors of memories given without one, embedded in
 * batches before the write takes the writer lock (else `add` would embed
 * them one at a time under it).
 * @param {ToolContext} ctx
 * @param {MemoryFields[]} items
 */
async function embedMemories(ctx, items) {
  const field = ctx.embedField;
  if (field === undefined) return;
  const missing = items.filter((m) => m.vector === undefined);
  const docs = await embedFirst(ctx, missing.map((m) => docOf(ctx, engineKey(ctx.ns, /** @type {string} */ (m.id)), m)));
  docs.forEach((doc, i) => {
    const v = /** @type {ArrayLike<number> | undefined} */ (doc[field]);
    if (v !== undefined) missing[i].vector = Array.from(v);
  });
}

/**
 * `docs` with the vectors the index's embedder gives them (as they are
 * without one).
 * @param {ToolContext} ctx
 * @param {StoredDoc[]} docs
 * @returns {Promise<StoredDoc[]>}
 */
async function embedFirst(ctx, docs) {
  const { embedDocuments } = /** @type {{ embedDocuments?: (docs: StoredDoc[]) => Promise<StoredDoc[]> }} */ (ctx.index);
  if (ctx.embedField === undefined || typeof embedDocuments !== 'function') return docs;
  return embedDocuments.call(ctx.index, docs);
}

/**
 * @param {ToolContext} ctx
 * @param {ToolArgs & { id: string }} args
 * @returns {Promise<ToolResult>}
 */
export async function update(ctx, args) {
  /** @type {string[]} */
  const changed = FIELDS.filter((f) => args[f] !== undefined);
  if (args.vector !== undefined) changed.push('vector');
  if (changed.length === 0) {
    throw fail('USAGE', `give at least one field to change: ${FIELDS.join(', ')}, vector`);
  }
  /** The memory as the update makes it (with its vectors: fields not given, the vector too, are kept). @param {{ key: string, doc: StoredDoc }} found */
  const updated = (found) => {
    /** @type {StoredDoc} */
    const doc = { ...found.doc, id: found.key };
    for (const f of FIELDS) if (args[f] !== undefined) doc[/** @type {string} */ (f)] = args[f];
    // Links point at engine ids, as memory_store stores them.
    if (Array.isArray(args.links)) doc.links = args.links.map((l) => ({ type: l.type, to: engineKey(found.doc.namespace, l.to) }));
    putVector(ctx, doc, args.vector);
    // A new title or text is embedded again (the index's embedder fills the dropped vector).
    if (ctx.embedField !== undefined && args.vector === undefined && (args.title !== undefined || args.text !== undefined)) delete doc[ctx.embedField];
    return doc;
  };
  // Embedded before the write takes the writer lock; under it only if the memory changed meanwhile.
  const early = ctx.embedField === undefined ? undefined : await find(ctx, args.id, true);
  const ahead = early && (await embedFirst(ctx, [updated(early)]))[0];
  const memory = await write(ctx, async (undo) => {
    const found = await find(ctx, args.id, true);
    if (!found) throw fail('NOT_FOUND', notFound(ctx, [args.id]));
    const doc = updated(found);
    const field = /** @type {string} */ (ctx.embedField);
    if (ahead?.[field] !== undefined && doc[field] === undefined && JSON.stringify(doc) === JSON.stringify({ ...ahead, [field]: undefined })) {
      doc[field] = ahead[field];
    }
    undo.push({ key: found.key, prev: found.doc });
    await ctx.index.add(doc);
    return { ...memoryOf(ctx, found.key, doc), text: String(doc.text ?? '') };
  });
  return ok(`Updated ${changed.join(', ')} of memory "${memory.id}":\n\n${fullText(memory, memory.text)}`, { memory, changed });
}

/**
 * @param {ToolContext} ctx
 * @param {ToolArgs} args
 * @returns {Promise<ToolResult>}
 */
export async function remove(ctx, args) {
  const ids = idsOf(args, 'memory_delete', true);
  const byFilter = [args.kind, args.tags, args.since, args.until].some((v) => v !== undefined);
  if (ids && byFilter) throw fail('USAGE', 'delete either by "ids" or by a filter (kind, tags, since, until), not both');
  if (ids) return removeIds(ctx, ids);
  if (!byFilter && (ctx.pinned || args.namespace === undefined)) {
    throw fail('USAGE', 'give "id"/"ids", or a filter (kind, tags, since, until) to delete by, with confirm: true');
  }
  return removeWhere(ctx, args);
}

/**
 * @param {ToolContext} ctx
 * @param {string[]} ids
 */
async function removeIds(ctx, ids) {
  const result = await write(ctx, async (undo) => {
    /** @type {string[]} */
    const deleted = [];
    /** @type {string[]} */
    const missing = [];
    for (const id of new Set(ids)) {
      const found = await find(ctx, id, true);
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

/**
 * @param {ToolContext} ctx
 * @param {ToolArgs} args
 */
async function removeWhere(ctx, args) {
  const filter = filterOf(ctx, args);
  const scope = describeFilter(args) || `namespace ${ctx.ns}`;
  if (args.confirm !== true) {
    const { hits, total = 0 } = await ctx.index.search('', { filter, sort: { field: 'timestamp', order: 'desc' }, limit: 10 });
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
    const { hits, total = 0 } = await ctx.index.search('', { filter, limit: MAX_LISTED });
    if (total > MAX_LISTED) {
      throw fail('USAGE', `${total} memories match; delete at most ${MAX_LISTED} at a time (narrow the filter with since/until)`);
    }
    /** @type {string[]} */
    const deleted = [];
    for (const hit of hits) {
      // With its vectors, for the undo.
      /** @type {StoredDoc} */
      const prev = (await ctx.index.get(hit.id, { vectors: true })) ?? { ...hit.fields, id: hit.id };
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

