// The writes and searches of an index opened with `embed` (embed.js) that
// wait for the embedder: patch, update(operations) and semantic search.
// Each embeds first, with no lock held and nothing written, then makes its
// writes at once through the index's synchronous members below (never
// public API).
import { MemdexError, describe, isObject, usage } from './memdex-error.js';
import { checkSearch, patched, runOperations } from './documents.js';
import { NO_EMBEDDER, checkSemantic, checkVectors } from './embed.js';
import { ENGINE } from './lifecycle.js';

/** The index's Embedder (undefined: opened without `embed`). */
export const EMBEDDER = Symbol('embedder');
/** Writes one document now: (doc) => void. */
export const PUT = Symbol('put');
/** The stored document with its vectors, or NOT_FOUND: (id, verb) => doc. */
export const STORED = Symbol('stored');
/** The search itself, synchronous: (query, options) => results. */
export const SEARCH = Symbol('search');

/** @typedef {{ [EMBEDDER]?: import('./embed.js').Embedder, [ENGINE]: import('./memdex.js').Engine, [PUT](doc: unknown): void, [STORED](id: string, verb: string): Record<string, unknown>, [SEARCH](query: string, options: Record<string, unknown> | undefined): import('./index.js').SearchResults }} Index */

/**
 * The `verify` of Embedder#fill for an index: the engine's own checks.
 * @param {Index} index
 * @param {string} field
 * @returns {import('./embed.js').Verify}
 */
export const verifier = (index, field) => (vectors, whats) => checkVectors((q, o) => index[SEARCH](q, o), field, vectors, whats);

/**
 * `embedDocuments(docs)`: the documents with the vectors `add` would
 * embed, nothing written.
 * @param {Index} index
 * @param {unknown} docs
 */
export async function embedDocuments(index, docs) {
  const embedder = index[EMBEDDER];
  if (embedder === undefined) throw usage('embedDocuments needs an embedder: open the index with `embed`');
  if (!Array.isArray(docs)) throw usage('embedDocuments(docs): docs must be an array of documents');
  return embedder.fill(docs, verifier(index, embedder.field));
}

/** Re-reads of a document changed by another write while its text was embedded. */
const PATCH_ATTEMPTS = 5;

/**
 * `patch` with re-embedding: when the patch changes the embedded text (or
 * the document has no vector), the new text is embedded first, then the
 * document is read again and written at once if its text is still the one
 * embedded. `known` holds texts embedded ahead (update's operations).
 * @param {Index} index
 * @param {import('./embed.js').Embedder} embedder
 * @param {string} id
 * @param {Record<string, unknown>} changes
 * @param {Map<string, Float32Array>} [known]
 * @returns {Promise<void>}
 */
export async function patchEmbedded(index, embedder, id, changes, known = new Map()) {
  for (let attempt = 0; attempt < PATCH_ATTEMPTS; attempt++) {
    const stored = index[STORED](id, 'patch');
    const doc = patched(stored, changes);
    const text = embedder.stale(stored, doc, changes);
    if (text === undefined) return index[PUT](doc);
    const vector = known.get(text);
    if (vector === undefined) {
      const [embedded] = await embedder.embed([text]);
      known.set(text, embedded);
      continue; // read the document again: it may have changed meanwhile
    }
    verifier(index, embedder.field)([vector], [`document ${describe(id)}`]);
    return index[PUT]({ ...doc, [embedder.field]: vector });
  }
  throw new MemdexError('CONFLICT', `document ${describe(id)} kept changing while its patch was embedded; patch it again`);
}

/**
 * Embeds what `update(operations)` will need before it takes the writer
 * lock: the documents of `add` operations (replaced by copies carrying
 * their vectors) and the new texts of `patch` operations (in `known`).
 * @param {Index} index
 * @param {import('./embed.js').Embedder} embedder
 * @param {import('./core.js').WriteOperation[]} ops
 */
export async function prepareOperations(index, embedder, ops) {
  /** @type {Map<string, Float32Array>} */
  const known = new Map();
  const texts = [];
  for (const o of ops) {
    if (o.op !== 'patch') continue;
    let stored;
    try {
      stored = index[STORED](o.id, 'patch');
    } catch {
      continue; // NOT_FOUND when the operation runs, unless an earlier one adds it
    }
    const text = embedder.stale(stored, patched(stored, o.changes), o.changes);
    if (text !== undefined) texts.push(text);
  }
  const adds = ops.filter((o) => o.op === 'add').map((o) => /** @type {{ doc: unknown }} */ (o).doc);
  const [docs, vectors] = await Promise.all([embedder.fill(adds, verifier(index, embedder.field)), embedder.embed(texts)]);
  texts.forEach((t, i) => known.set(t, vectors[i]));
  let next = 0;
  const prepared = ops.map((o) => (o.op === 'add' ? { ...o, doc: docs[next++] } : o));
  return { ops: /** @type {import('./core.js').WriteOperation[]} */ (prepared), known };
}

/**
 * Applies prepared operations (see prepareOperations): adds are written as
 * they are; a patch embeds again only if its document changed meanwhile.
 * @param {Index & { remove(id: string): boolean, removeWhere(filter: import('./index.js').Filter): number }} index
 * @param {import('./embed.js').Embedder} embedder
 * @param {import('./core.js').WriteOperation[]} ops
 * @param {Map<string, Float32Array>} known
 */
export function applyOperations(index, embedder, ops, known) {
  return runOperations(index, ops, {
    add: (doc) => index[PUT](doc),
    patch: (id, changes) => patchEmbedded(index, embedder, id, changes, known),
  });
}

/**
 * What a search with `semantic` (or `hybrid` without a `vector`) runs: the
 * query text (blank for `semantic: 'vector'`), the engine's options,
 * whether the query is to be embedded, and what ranks the hits (`by`, for
 * `results.semantic`; undefined for a plain search).
 * @param {string} query
 * @param {unknown} options
 */
export function semanticPlan(query, options) {
  const { semantic: asked, ...rest } = checkSearch(query, options) ?? {};
  const semantic = checkSemantic(asked);
  const given = rest.vector !== undefined && rest.vector !== null;
  const wants = semantic !== undefined || (rest.hybrid !== undefined && !given);
  const text = semantic === 'vector' ? '' : query;
  if (!wants || given || query.trim() === '') {
    /** @type {'hybrid' | 'vector' | 'lexical' | undefined} */
    const by = semantic === undefined ? undefined : given ? semantic : 'lexical';
    return { query: semantic === undefined ? query : text, options: rest, embed: false, by };
  }
  return { query: text, options: rest, embed: true, by: semantic ?? /** @type {const} */ ('hybrid') };
}

/**
 * `search` with `semantic`, or on an index with an embedder: a hybrid
 * search (`semantic: 'hybrid'`, or `hybrid` options) or a vector search
 * (`semantic: 'vector'`) without a `vector` embeds the query (one call).
 * Without an embedder such a search is answered by words alone and says so
 * (`results.semantic: 'lexical'`, a line of `results.warnings`). Results of a
 * semantic search carry `semantic`: what ranked them.
 * @param {Index} index
 * @param {string} query
 * @param {unknown} options
 * @returns {import('./index.js').SearchResults | Promise<import('./index.js').SearchResults>}
 */
export function searchSemantic(index, query, options) {
  const embedder = index[EMBEDDER];
  /** @param {ReturnType<typeof semanticPlan>} plan @param {Record<string, unknown>} opts */
  const run = (plan, opts) => {
    const results = index[SEARCH](plan.query, opts);
    return plan.by === undefined ? results : Object.assign(results, { semantic: plan.by });
  };
  if (embedder === undefined) {
    index[ENGINE]; // throws CLOSED before anything else
    const plan = semanticPlan(query, options);
    if (plan.embed) {
      const { hybrid: _, ...lexical } = plan.options;
      const results = index[SEARCH](query, lexical);
      return Object.assign(results, { semantic: /** @type {const} */ ('lexical'), warnings: [...(results.warnings ?? []), NO_EMBEDDER] });
    }
    return run(plan, plan.options);
  }
  return (async () => {
    index[ENGINE];
    const plan = semanticPlan(query, options);
    if (!plan.embed) return run(plan, plan.options);
    const [vector] = await embedder.embed([query]);
    verifier(index, embedder.field)([vector], ['the query']);
    return run(plan, { ...plan.options, vector, vectorField: plan.options.vectorField ?? embedder.field });
  })();
}

/**
 * `pack` on an index with an embedder: the (possibly embedded) search
 * first, then the packing over its results.
 * @param {Index & { count(): number, search(query: string, options?: object): unknown }} index
 * @param {string} query
 * @param {unknown} options
 * @param {(db: { search: Function, count: Function }) => import('./index.js').PackResult} packOver
 */
export async function packEmbedded(index, query, options, packOver) {
  if (!isObject(options)) return packOver(index);
  const { budgetTokens: _b, countTokens: _c, ...searchOptions } = options;
  const results = await index.search(query, { limit: 20, ...searchOptions });
  return packOver({ count: () => index.count(), search: () => results });
}
