// @ts-check
// The read operations, run against any open index of a namespace: the
// isolate's cached copy (most reads) or the writer's own index (reads
// forwarded for read-your-writes). One implementation, so both answer alike.
import { engineId, publicId, publicLinks, SEP } from './ids.js';
import { BASE_FIELDS, schemaOf } from './schema.js';

/** @typedef {import('./memdex.js').Memdex} Memdex */
/** @typedef {Memdex | import('memdex').LazyMemdex} Index an index opened whole, or lazily (searches and reads by id) */

/** Reads a lazily opened index does not answer: the writer does (it holds the whole index). */
export const lazyServes = (/** @type {ReadOp} */ op) => op.kind !== 'export';

/**
 * @typedef {{ kind: 'search', query: string, options: Record<string, unknown> }
 *   | { kind: 'get', id: string, vectors?: boolean }
 *   | { kind: 'suggest', prefix: string, limit: number }
 *   | { kind: 'stats' }
 *   | { kind: 'describe' }
 *   | { kind: 'export' }} ReadOp
 */

/**
 * Runs `op` on `index` of namespace `ns`. Throws MemdexErrors (bad options)
 * as the package does.
 *
 * @param {Index} index
 * @param {string} ns
 * @param {ReadOp} op
 * @returns {Promise<unknown>}
 */
export async function runRead(index, ns, op) {
  switch (op.kind) {
    case 'search': {
      const started = Date.now();
      // The engine checks the options (names, types, values) as it does for
      // the package; a `semantic` search on an index that embeds (embed.js)
      // embeds its query first.
      const result = /** @type {{ hits: Record<string, any>[] }} */ (await index.search(op.query, /** @type {import('memdex').SearchOptions} */ (op.options)));
      for (const hit of result.hits) {
        hit.id = publicId(ns, hit.id);
        if (hit.fields?.links !== undefined) hit.fields.links = publicLinks(ns, hit.fields.links);
        if (hit.via) hit.via.from = publicId(ns, hit.via.from);
        if (hit.duplicates) hit.duplicates = hit.duplicates.map((/** @type {string} */ d) => publicId(ns, d));
      }
      return { ...result, generation: index.generation, tookMs: Date.now() - started };
    }
    case 'get': {
      const doc = await findDoc(index, ns, op.id, op.vectors === true);
      if (!doc) return null;
      /** @type {Record<string, unknown>} */
      const out = { ...doc, id: op.id };
      if (out.links !== undefined) out.links = publicLinks(ns, out.links);
      return out;
    }
    case 'suggest':
      return { suggestions: await index.suggest(op.prefix, { limit: op.limit }), generation: index.generation };
    case 'stats': {
      const { pendingWrites: _p, buffered: _b, ...stats } = /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (await index.stats()));
      return stats;
    }
    case 'export':
      if ('lazy' in index) throw new Error('export of a lazy copy: lazyServes() routes it to the writer');
      return index.export();
    case 'describe':
      return { namespace: ns, schema: schemaOf(index), baseFields: BASE_FIELDS.slice(2), documents: index.size, generation: index.generation };
  }
}

/**
 * The stored document `id` of namespace `ns`: the REST/MCP engine id, or a
 * plain id of a document of `ns` (added through the JS API). Any index: a
 * lazily opened one reads by id asynchronously.
 *
 * @param {Index} index
 * @param {string} ns
 * @param {string} id
 * @param {boolean} [vectors] with its vectors
 */
export async function findDoc(index, ns, id, vectors = false) {
  const options = vectors ? { vectors } : undefined;
  const doc = await index.get(engineId(ns, id), options);
  if (doc) return doc;
  const plain = await index.get(id, options);
  return plain && plain.namespace === ns ? plain : undefined;
}

/**
 * Engine ids in an error message shown as the client's ids (the package
 * quotes ids as JSON strings, where the separator reads `\u001f`).
 */
export const cleanMessage = (/** @type {string} */ ns, /** @type {string} */ message) =>
  message.split(ns + SEP).join('').split(`${ns}\\u001f`).join('');
