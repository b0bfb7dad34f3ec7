// @ts-check
// The write operations, applied by the namespace's writer (writer.js) to
// its open index as part of a group commit. The counterpart of reads.js.
import { errorRecord } from './errors.js';
import { engineId, namespaceCovers } from './ids.js';
import { tools } from './memdex.js';
import { cleanMessage, findDoc } from './reads.js';
import { canonical, schemaOf, toolFields } from './schema.js';

/**
 * @typedef {{ kind: 'create', schema: import('./schema.js').Schema, creating?: boolean }
 *   | { kind: 'add', docs: Record<string, unknown>[], bytes: number }
 *   | { kind: 'patch', id: string, changes: Record<string, unknown> }
 *   | { kind: 'remove', ids: string[] }
 *   | { kind: 'removeWhere', filter: Record<string, unknown> }
 *   | { kind: 'tool', name: string, args: Record<string, unknown>, maxChars?: number }} WriteOp
 * @typedef {{ keyId: string, maxNamespaces: number }} Grant  who writes, for the namespace quota
 * @typedef {{ ok: true, value: unknown, generation: number } | { ok: false, error: { code: string, message: string, added?: number, limit?: string, data?: Record<string, unknown>, status?: number }, generation?: number }} Outcome
 */

/** Bytes of documents indexed between two yields to the event loop. */
const SLICE_BYTES = 128 << 10;

/** Tools that can add memories, and so may create a namespace. */
const CREATING_TOOLS = new Set(['memory_store', 'memory_update']);

/** Whether `op` may add or enlarge documents (refused in a full namespace). @param {WriteOp} op */
export const mayGrow = (op) => op.kind === 'add' || op.kind === 'patch' || (op.kind === 'tool' && CREATING_TOOLS.has(op.name));

/**
 * The refusal of growth in namespace `ns` holding `bytes` of segments (at
 * a batch's start: committed, one batch may pass `limit`), or null below it. @param {string} ns @param {number} bytes @param {number} limit @returns {Outcome | null}
 */
export function namespaceFull(ns, bytes, limit) {
  if (bytes < limit) return null;
  const message = `namespace "${ns}" holds ${bytes} bytes of segments, its limit is ${limit} (maxNamespaceBytes): nothing of this write was stored. Removals still run; a removed document's bytes return when a merge rewrites its segment (once more than half of a segment is removed), or use another namespace`;
  return { ok: false, error: { code: 'LIMIT', message, limit: 'maxNamespaceBytes', status: 403 } };
}

/** Whether `op` may create its namespace (a create, an add, a store). @param {WriteOp} op */
export const mayCreate = (op) => op.kind === 'create' || op.kind === 'add' || (op.kind === 'tool' && CREATING_TOOLS.has(op.name));

/**
 * Applies `op` to `index` of namespace `ns` (not committed); its errors are
 * its outcome. `full`: the refusal of growth ({@link namespaceFull}), if due.
 *
 * @param {import('./memdex.js').Memdex} index
 * @param {string} ns
 * @param {WriteOp} op
 * @param {Outcome | null} [full]
 * @returns {Promise<Outcome>}
 */
export async function applyWrite(index, ns, op, full = null) {
  if (full && mayGrow(op)) return full;
  try {
    switch (op.kind) {
      case 'create': {
        // The index was opened with this request's schema when it created
        // the namespace, or upgraded to it (writer.js) before this op: every
        // field it names is as asked. Anything else is a refused upgrade's
        // leftover, never silently accepted.
        const schema = schemaOf(index);
        if (canonical(schema) !== canonical({ ...schema, ...op.schema })) {
          const message = `namespace "${ns}" has the schema ${JSON.stringify(schema)}, not the one asked; retry the request`;
          return { ok: false, error: { code: 'CONFLICT', message } };
        }
        return { ok: true, value: { namespace: ns, schema, created: op.creating === true }, generation: 0 };
      }
      case 'add': {
        // One document: the engine's own error, without addMany's "stopped at document 1".
        if (op.docs.length === 1) {
          // With Workers AI (embed.js), a document without a vector is embedded first.
          await index.add(/** @type {import('memdex').MemdexDocument} */ (op.docs[0]));
          return { ok: true, value: { added: 1 }, generation: 0 };
        }
        // Indexed in slices of about SLICE_BYTES, a yield apart (addMany):
        // see commitInSlices.
        const batchSize = Math.max(1, Math.floor((op.docs.length * SLICE_BYTES) / Math.max(op.bytes, 1)));
        return { ok: true, value: { added: await index.addMany(/** @type {import('memdex').MemdexDocument[]} */ (op.docs), { batchSize }) }, generation: 0 };
      }
      case 'patch': {
        // The REST id, or a plain id of this namespace (JS API).
        const doc = await findDoc(index, ns, op.id);
        if (!doc) return { ok: false, error: { code: 'NOT_FOUND', message: `no document "${op.id}" in namespace "${ns}" to patch; PUT it first` } };
        await index.patch(doc.id, /** @type {import('memdex').Changes} */ (op.changes));
        return { ok: true, value: { patched: true }, generation: 0 };
      }
      case 'remove': {
        let removed = 0;
        for (const id of op.ids) {
          // The REST/MCP id, or a plain id of this namespace (JS API).
          if (index.remove(engineId(ns, id))) removed++;
          else if ((await findDoc(index, ns, id)) && index.remove(id)) removed++;
        }
        return { ok: true, value: { removed }, generation: 0 };
      }
      case 'removeWhere': {
        // The filter's namespace is intersected with the URL's, never
        // replaced by it: a filter naming only other namespaces removes
        // nothing here.
        const covers = op.filter.namespace === undefined || namespaceCovers(op.filter.namespace, ns);
        if (covers === false) return { ok: true, value: { removed: 0 }, generation: 0 };
        const filter = covers ? { ...op.filter, namespace: ns } : op.filter; // undefined: a shape for the engine to refuse
        return { ok: true, value: { removed: index.removeWhere(/** @type {import('memdex').Filter} */ (filter)) }, generation: 0 };
      }
      case 'tool': {
        const options = { namespace: ns, commit: false, maxChars: op.maxChars, ...toolFields(index) };
        const result = await tools.handleToolCall(index, op.name, op.args, options);
        return { ok: true, value: result, generation: 0 };
      }
    }
  } catch (err) {
    const error = errorRecord(err);
    const clean = { ...error, message: adviseSchema(ns, cleanMessage(ns, error.message)) };
    // `data` may quote engine ids too (its JSON text escapes the separator as messages do).
    if (error.data) clean.data = JSON.parse(cleanMessage(ns, JSON.stringify(error.data)));
    return { ok: false, error: clean };
  }
}

/**
 * The engine's message, with how a field is declared here (the engine's
 * advice speaks of opening the index with a schema).
 *
 * @param {string} ns
 * @param {string} message
 */
function adviseSchema(ns, message) {
  if (!/is not declared in the schema/.test(message)) return message;
  return `${message} Here a namespace's fields are declared with PUT /v1/ns/${ns} and {"schema": {"<field>": "keyword"}}, at its creation or later (the fields named are added; GET /v1/ns/${ns} shows its schema).`;
}

/** Resolves after the event loop ran what was waiting (timers, other requests). */
const macrotask = () => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * Commits `index`'s writes with its CPU in slices a macrotask apart.
 * workerd runs every isolate of a process on one thread, so other requests
 * wait for one slice at most: a 1 MiB write of unique words was one ~200 ms
 * stretch, and a /health meanwhile waited 156 ms (69.7 ms at most once
 * sliced, bench/adversarial.mjs). Indexing yields itself (`add` above);
 * then freezing the write buffer into a segment (`stats()` flushes it),
 * then the commit's serialization.
 *
 * @param {import('./memdex.js').Memdex} index
 */
export async function commitInSlices(index) {
  await macrotask();
  index.stats();
  await macrotask();
  await index.commit();
}
