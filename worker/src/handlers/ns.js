// @ts-check
// A namespace itself: PUT /v1/ns/:ns creates it with a schema, GET shows it.
//
// A namespace also comes into being with its first write (PUT/POST docs,
// memory_store); it then has the base fields only. To hold other fields
// (keywords to filter on, numbers, dates, vectors for vector and hybrid
// search), create it first with `{"schema": {...}}`: the fields are added to
// the base fields, and every REST and MCP write and search of the
// namespace uses them. PUT again adds the fields it names (or changes a
// weight) in place, as `Memdex.open({ schema })` upgrades a package index;
// a change the engine cannot make in place (a field's type, a language,
// vector dimensions) is SCHEMA and changes nothing.
import { ApiError, badRequest } from '../errors.js';
import { isObject, json, parseJson, readText, requireType } from '../http.js';
import { readParams } from '../params.js';
import { Memdex } from '../memdex.js';
import { checkSchema } from '../schema.js';
import { generationHeader, read, write, writeResponse } from '../context.js';

/** @typedef {import('../context.js').Context} Context */

/** The largest schema body, in bytes: 32 fields with room for their definitions. */
const MAX_SCHEMA_BYTES = 16 << 10;

/** PUT /v1/ns/:ns — `{"schema": {...}}` (optional: `{}` creates one with the base fields). */
export async function createNamespace(/** @type {Context} */ c) {
  const { ns } = c.params;
  requireType(c.request, ['application/json']);
  readParams(c.url.searchParams);
  const body = parseJson(await readText(c.request, Math.min(c.settings.limits.maxBodyBytes, MAX_SCHEMA_BYTES)));
  if (!isObject(body) || Object.keys(/** @type {object} */ (body)).some((k) => k !== 'schema')) {
    throw badRequest('the body must be {"schema": {...}}, e.g. {"schema": {"userId": "keyword", "embedding": {"type": "vector", "dimensions": 384}}}');
  }
  const schema = checkSchema(/** @type {{ schema?: unknown }} */ (body).schema ?? {});
  await engineCheck(schema);
  const outcome = await write(c, ns, { kind: 'create', schema });
  const response = writeResponse(outcome);
  if (!outcome.ok || !(/** @type {{ created: boolean }} */ (outcome.value).created)) return response;
  return new Response(response.body, { status: 201, headers: response.headers });
}

/** GET /v1/ns/:ns — the namespace's schema and size. */
export async function describeNamespace(/** @type {Context} */ c) {
  const { minGeneration } = readParams(c.url.searchParams);
  const r = await read(c, c.params.ns, { kind: 'describe' }, minGeneration);
  return json(r.value, 200, { ...generationHeader(r.generation), 'x-memdex-served-by': r.servedBy });
}

/**
 * The engine's own check of the field definitions (types, options), on a
 * throwaway in-memory index, before anything is created: the same SCHEMA
 * errors as the package's Memdex.open.
 *
 * @param {import('../schema.js').Schema} schema
 */
async function engineCheck(schema) {
  /** @type {import('../memdex.js').Memdex | undefined} */
  let probe;
  try {
    probe = await Memdex.open({ schema: /** @type {import('memdex').Schema} */ (schema) });
  } catch (err) {
    const e = /** @type {{ code?: string, message?: string }} */ (err);
    if (e.code === 'SCHEMA' || e.code === 'USAGE') throw new ApiError('SCHEMA', String(e.message));
    throw err;
  } finally {
    probe?.free();
  }
}
