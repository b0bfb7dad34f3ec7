// `Memdex.openInWorker({ embed })`: the embedder is a function and cannot
// cross into the worker, so it runs here, on the calling side. Documents
// and queries are embedded before they are sent; the worker's index (opened
// without `embed`) checks the vectors with the engine's validator
// (`checkVectors`) before anything is written, so an embedder error is
// `EMBED` and writes nothing, as in process. A patch reads the stored
// document first to learn whether its embedded text changes.
import { isObject } from './memdex-error.js';
import { patched } from './documents.js';
import { semanticPlan } from './embed-ops.js';

/** @typedef {import('./embed.js').Embedder} Embedder */
/** @typedef {(method: string, args: unknown[]) => Promise<any>} Invoke */
/** @typedef {Record<string, (...args: any[]) => Promise<any>>} Methods */

/**
 * Replaces the writes and searches of `remote` that may embed with ones
 * that embed here first (own properties over its prototype's methods).
 * @param {Methods} remote a RemoteMemdex
 * @param {Embedder} embedder
 * @param {Invoke} invoke calls the worker
 */
export function embedInClient(remote, embedder, invoke) {
  const field = embedder.field;
  const base = Object.getPrototypeOf(remote);
  /** @type {import('./embed.js').Verify} */
  const verify = (vectors, whats) => invoke('checkVectors', [field, vectors, whats]);
  /** @param {Iterable<unknown> | AsyncIterable<unknown>} docs */
  const fillAll = async (docs) => {
    if (docs === null || typeof docs !== 'object' || !(Symbol.iterator in docs || Symbol.asyncIterator in docs)) return docs;
    const all = [];
    for await (const doc of docs) all.push(doc);
    return embedder.fill(all, verify);
  };
  /**
   * The changes of a patch, with the new vector when it changes the embedded text.
   * @param {string} id
   * @param {unknown} changes
   */
  const patchChanges = async (id, changes) => {
    if (typeof id !== 'string' || !isObject(changes)) return changes; // the worker's USAGE
    const stored = await invoke('get', [id, { vectors: true }]);
    if (stored === undefined) return changes; // the worker's NOT_FOUND
    const text = embedder.stale(stored, patched(stored, changes), changes);
    if (text === undefined) return changes;
    const [vector] = await embedder.embed([text]);
    await verify([vector], [`document ${JSON.stringify(id)}`]);
    return { ...changes, [field]: vector };
  };
  /**
   * The options to send for a search or pack: the query embedded here.
   * @param {string} query
   * @param {unknown} options
   */
  const searchArgs = async (query, options) => {
    const plan = semanticPlan(query, options);
    if (!plan.embed) return { query: plan.query, options: plan.options, by: plan.by };
    const [vector] = await embedder.embed([query]);
    await verify([vector], ['the query']);
    return { query: plan.query, options: { ...plan.options, vector, vectorField: plan.options.vectorField ?? field }, by: plan.by };
  };
  /** @type {Methods} */
  const methods = {
    async embedDocuments(docs) {
      return embedder.fill(Array.isArray(docs) ? docs : [...docs], verify);
    },
    async add(doc) {
      const [ready] = await embedder.fill([doc], verify);
      return base.add.call(remote, ready);
    },
    async addMany(docs, options) {
      return base.addMany.call(remote, await fillAll(docs), options);
    },
    async addAll(docs) {
      return base.addMany.call(remote, await fillAll(docs));
    },
    async patch(id, changes) {
      return base.patch.call(remote, id, await patchChanges(id, changes));
    },
    async update(operations, options) {
      if (!Array.isArray(operations)) return base.update.call(remote, operations, options);
      const adds = operations.filter((o) => o?.op === 'add').map((o) => o.doc);
      const docs = await embedder.fill(adds, verify);
      let next = 0;
      const ready = [];
      for (const o of operations) {
        if (o?.op === 'add') ready.push({ ...o, doc: docs[next++] });
        else if (o?.op === 'patch') ready.push({ ...o, changes: await patchChanges(o.id, o.changes) });
        else ready.push(o);
      }
      return base.update.call(remote, ready, options);
    },
    async search(query, options) {
      const { query: q, options: o, by } = await searchArgs(query, options);
      const results = await base.search.call(remote, q, o);
      return by === undefined ? results : Object.assign(results, { semantic: by });
    },
    async pack(query, options) {
      if (!isObject(options)) return base.pack.call(remote, query, options);
      const { budgetTokens, countTokens, ...searchOptions } = options;
      const { query: q, options: o } = await searchArgs(query, searchOptions);
      return base.pack.call(remote, q, { ...o, budgetTokens, ...(countTokens === undefined ? {} : { countTokens }) });
    },
  };
  for (const [name, fn] of Object.entries(methods)) Object.defineProperty(remote, name, { value: fn, writable: true, configurable: true });
}
