// @ts-check
// Document writes and reads: PUT/PATCH/GET/DELETE /v1/ns/:ns/docs/:id,
// POST /v1/ns/:ns/docs (JSON array or NDJSON), POST /v1/ns/:ns/delete.
//
// What only HTTP makes wrong (not JSON, over a size limit, ids the REST
// paths cannot carry) is refused before anything is written. Everything
// else is the engine's to check, so its errors read the same on every
// surface (tests/js/contract.test.mjs): a document that is not an object or
// has no string id, and the schema. It stops at the first it rejects; the
// documents before it are added and committed, and the error says how many
// (`added`), as the package's addAll does.
import { ApiError, badRequest, limitError } from '../errors.js';
import { isObject, json, parseJson, parseNdjson, readText, requireType, utf8Length } from '../http.js';
import { checkId, engineId, engineLinks } from '../ids.js';
import { readParams } from '../params.js';
import { generationHeader, read, write, writeResponse } from '../context.js';
import { embedBeforeWrite } from '../embed.js';

/** @typedef {import('../context.js').Context} Context */

const NDJSON = ['application/x-ndjson', 'application/jsonl', 'application/jsonlines'];

/** PUT /v1/ns/:ns/docs/:id — one document, replaced whole. */
export async function putDoc(/** @type {Context} */ c) {
  const { ns, id } = c.params;
  checkId(id);
  requireType(c.request, ['application/json']);
  const text = await readText(c.request, c.settings.limits.maxBodyBytes);
  const bytes = utf8Length(text);
  if (bytes > c.settings.limits.maxDocBytes) {
    throw limitError('maxDocBytes', `the document is larger than ${c.settings.limits.maxDocBytes} bytes`);
  }
  const doc = parseJson(text);
  // The engine rejects a body that is not an object, in its own words.
  if (!isObject(doc)) return writeResponse(await write(c, ns, { kind: 'add', docs: [doc], bytes }));
  if (doc.id !== undefined && doc.id !== id) throw badRequest(`the body's id "${String(doc.id).slice(0, 200)}" differs from the URL's "${id}"`);
  const docs = await embedBeforeWrite(c.env, ns, [stored(ns, id, doc)]);
  return writeResponse(await write(c, ns, { kind: 'add', docs, bytes }));
}

/**
 * PATCH /v1/ns/:ns/docs/:id — the fields of the body changed (`null`
 * removes one), every other field, the vectors and the links kept: the
 * package's `patch`, applied by the writer.
 */
export async function patchDoc(/** @type {Context} */ c) {
  const { ns, id } = c.params;
  checkId(id);
  requireType(c.request, ['application/json', 'application/merge-patch+json']);
  const text = await readText(c.request, c.settings.limits.maxBodyBytes);
  const bytes = utf8Length(text);
  if (bytes > c.settings.limits.maxDocBytes) {
    throw limitError('maxDocBytes', `the changes are larger than ${c.settings.limits.maxDocBytes} bytes`);
  }
  const body = parseJson(text);
  if (!isObject(body)) throw badRequest('the body must be a JSON object of the fields to change, e.g. {"text": "..."} (null removes a field)');
  const changes = /** @type {Record<string, unknown>} */ (body);
  if (changes.id !== undefined && changes.id !== id) throw badRequest(`the body's id "${String(changes.id).slice(0, 200)}" differs from the URL's "${id}"; a patch cannot change an id`);
  if (changes.namespace !== undefined && changes.namespace !== ns) {
    throw badRequest(`the body's namespace differs from the URL's "${ns}"; a document stays in its namespace (PUT it in the other one and DELETE it here)`);
  }
  const { id: _id, namespace: _ns, ...fields } = changes;
  if (fields.links !== undefined && fields.links !== null) fields.links = engineLinks(ns, fields.links);
  return writeResponse(await write(c, ns, { kind: 'patch', id, changes: fields }));
}

/** POST /v1/ns/:ns/docs — bulk upsert. */
export async function postDocs(/** @type {Context} */ c) {
  const { ns } = c.params;
  const limits = c.settings.limits;
  const type = requireType(c.request, ['application/json', ...NDJSON]);
  const text = await readText(c.request, limits.maxBodyBytes);
  /** @type {{ value: unknown, bytes: number }[]} */
  let items;
  if (NDJSON.includes(type)) items = parseNdjson(text);
  else {
    const body = parseJson(text);
    const list = Array.isArray(body) ? body : [body];
    items = list.map((value) => ({ value, bytes: utf8Length(JSON.stringify(value) ?? '') }));
  }
  if (items.length === 0) throw badRequest('no documents in the body');
  if (items.length > limits.maxDocsPerRequest) {
    throw limitError('maxDocsPerRequest', `${items.length} documents in one request; at most ${limits.maxDocsPerRequest}`);
  }
  const docs = items.map(({ value, bytes }, i) => {
    if (bytes > limits.maxDocBytes) {
      throw limitError('maxDocBytes', `document ${i} is larger than ${limits.maxDocBytes} bytes`);
    }
    // What the engine rejects anyway (not an object, no string id) goes to
    // it as it is: its error names the problem the same way on every surface.
    if (!isObject(value)) return /** @type {Record<string, unknown>} */ (value);
    const doc = /** @type {Record<string, unknown>} */ (value);
    if (typeof doc.id !== 'string' || doc.id === '') return doc;
    try {
      checkId(doc.id);
    } catch (err) {
      throw new ApiError('SCHEMA', `document ${i}: ${/** @type {Error} */ (err).message}`);
    }
    return stored(ns, /** @type {string} */ (doc.id), doc);
  });
  return writeResponse(await write(c, ns, { kind: 'add', docs: await embedBeforeWrite(c.env, ns, docs), bytes: utf8Length(text) }));
}

/** GET /v1/ns/:ns/docs/:id (`?vectors=true`: with its vectors, as the package's `get(id, { vectors: true })`) */
export async function getDoc(/** @type {Context} */ c) {
  const { ns, id } = c.params;
  checkId(id);
  const { minGeneration } = readParams(c.url.searchParams, ['vectors']);
  const flag = c.url.searchParams.get('vectors');
  if (flag !== null && flag !== 'true' && flag !== 'false') throw badRequest(`"vectors" must be true or false, got "${flag.slice(0, 40)}"`);
  const r = await read(c, ns, { kind: 'get', id, vectors: flag === 'true' }, minGeneration);
  if (!r.value) throw new ApiError('NOT_FOUND', `no document "${id}" in namespace "${ns}"`);
  return json(r.value, 200, { ...generationHeader(r.generation), 'x-memdex-served-by': r.servedBy });
}

/** DELETE /v1/ns/:ns/docs/:id */
export async function deleteDoc(/** @type {Context} */ c) {
  const { ns, id } = c.params;
  checkId(id);
  const outcome = await write(c, ns, { kind: 'remove', ids: [id] });
  if (outcome.ok) outcome.value = { removed: /** @type {any} */ (outcome.value).removed > 0 };
  return writeResponse(outcome);
}

/** POST /v1/ns/:ns/delete — every document matching `{ "filter": {...} }`. */
export async function deleteWhere(/** @type {Context} */ c) {
  const { ns } = c.params;
  requireType(c.request, ['application/json']);
  const body = parseJson(await readText(c.request, c.settings.limits.maxBodyBytes));
  if (!isObject(body) || Object.keys(body).some((k) => k !== 'filter')) {
    throw badRequest('the body must be {"filter": {...}}, e.g. {"filter": {"kind": "scratch"}}');
  }
  const { filter } = /** @type {{ filter: unknown }} */ (body);
  if (!isObject(filter) || Object.keys(/** @type {object} */ (filter)).length === 0) {
    throw badRequest('"filter" must be a non-empty object; to delete everything use {"filter": {"namespace": "<ns>"}}');
  }
  return writeResponse(await write(c, ns, { kind: 'removeWhere', filter: /** @type {Record<string, unknown>} */ (filter) }));
}

/**
 * The document as stored: the engine id of the namespace (ids.js), and the
 * namespace the URL names (a body cannot write elsewhere).
 *
 * @param {string} ns
 * @param {string} id
 * @param {Record<string, unknown>} doc
 */
function stored(ns, id, doc) {
  /** @type {Record<string, unknown>} */
  const out = { ...doc, id: engineId(ns, id), namespace: ns };
  if (doc.links !== undefined) out.links = engineLinks(ns, doc.links);
  return out;
}
