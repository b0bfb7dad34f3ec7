// @ts-check
// Namespace schemas: the fields a namespace adds to the base fields the
// memory tools need, declared when it is created (PUT /v1/ns/:ns) and
// fixed from then on. The engine keeps the whole schema with the index (in
// its manifest); the writer also stores the custom part in its Durable
// Object storage (`meta:schema`) and in KV beside the manifest, where read
// copies find it (`GET /v1/ns/:ns` shows it; the MCP tools learn the
// vector field from it).
//
// Bounds against hostile input: at most MAX_FIELDS fields, names of at
// most MAX_NAME characters (an operator's caps on a shared service,
// docs/BOUNDS.md). Everything else about a field definition, dimensions
// included, is the engine's to judge (the same SCHEMA errors as the
// package's Memdex.open).
import { ApiError, limitError } from './errors.js';
import { isObject } from './http.js';

/** The default schema's fields (and the engine's reserved names): the memory tools read and write them. */
export const BASE_FIELDS = ['id', 'namespace', 'title', 'text', 'kind', 'tags', 'timestamp', 'links'];
export const MAX_FIELDS = 32;
export const MAX_NAME = 64;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** @typedef {Record<string, string | Record<string, unknown>>} Schema */

/**
 * The custom schema of a create request, checked for its bounds and names
 * (the field definitions are the engine's to check).
 *
 * @param {unknown} schema
 * @returns {Schema}
 */
export function checkSchema(schema) {
  if (!isObject(schema)) {
    throw new ApiError('SCHEMA', 'schema error: "schema" must be an object of field definitions, e.g. {"userId": "keyword", "embedding": {"type": "vector", "dimensions": 384}}');
  }
  const fields = Object.entries(/** @type {Record<string, unknown>} */ (schema));
  if (fields.length > MAX_FIELDS) {
    throw limitError('maxSchemaFields', `the schema declares ${fields.length} fields; a namespace has at most ${MAX_FIELDS} besides the base fields`, 400);
  }
  for (const [name] of fields) {
    if (name.length > MAX_NAME) throw limitError('maxFieldName', `field name "${name.slice(0, 80)}…" is longer than ${MAX_NAME} characters`, 400);
    if (!NAME.test(name)) {
      throw new ApiError('SCHEMA', `schema error on field \`${name}\`: a field name is letters, digits and _, not starting with a digit`);
    }
    if (BASE_FIELDS.includes(name)) {
      throw new ApiError(
        'SCHEMA',
        `schema error on field \`${name}\`: it is a base field (${BASE_FIELDS.join(', ')}), which every namespace has and the memory tools rely on; give your field another name`,
      );
    }
  }
  return /** @type {Schema} */ (schema);
}

/** The schema in a canonical form (`"keyword"` is `{ "type": "keyword" }`, keys sorted), for comparison. @param {Schema} schema */
export function canonical(schema) {
  /** @param {unknown} v @returns {unknown} */
  const sort = (v) => (isObject(v) ? Object.fromEntries(Object.keys(/** @type {object} */ (v)).sort().map((k) => [k, sort(/** @type {any} */ (v)[k])])) : v);
  return JSON.stringify(sort(Object.fromEntries(Object.entries(schema).map(([k, d]) => [k, typeof d === 'string' ? { type: d } : d]))));
}

/**
 * The memory tools' `vectorField` for a namespace: its schema's (first)
 * vector field, where `vector` arguments go; false when it has none (the
 * tools then refuse `vector` saying so).
 *
 * @param {Schema} schema
 * @returns {string | false}
 */
export function toolVectorField(schema) {
  const found = Object.entries(schema).find(([, d]) => isObject(d) && /** @type {Record<string, unknown>} */ (d).type === 'vector');
  return found ? found[0] : false;
}

/** The custom schema of each open index (set by whoever opened it: reader.js, writer.js), and whether it embeds. */
const schemas = new WeakMap();

/** @param {object} index @param {Schema} schema @param {boolean} [embeds] opened with `embed` (embed.js) */
export const setSchemaOf = (index, schema, embeds = false) => void schemas.set(index, { schema, embeds });

/** @param {object} index @returns {Schema} */
export const schemaOf = (index) => schemas.get(index)?.schema ?? {};

/**
 * The memory tools' options for an index: its `vectorField`, and its
 * `embedField` when it embeds (memory_search then searches by meaning).
 *
 * @param {object} index
 */
export function toolFields(index) {
  const vectorField = toolVectorField(schemaOf(index));
  return schemas.get(index)?.embeds && vectorField !== false ? { vectorField, embedField: vectorField } : { vectorField };
}

/** The KV key of a namespace's custom schema, beside its index's keys. @param {string} prefix  kvPrefix(ns) */
export const schemaKey = (prefix) => `${prefix}schema`;
