// @ts-check
// Search, suggest and read parameters, from a query string (GET) or a JSON
// body (POST). Both give the package's SearchOptions, which the engine
// checks (names, types, values: its USAGE/SCHEMA errors become 400s, so a
// typo is a 400 that names it, never an ignored option); this file checks
// only what HTTP adds (q, minGeneration, the Worker's limits).
import { badRequest, limitError } from './errors.js';
import { isObject, utf8Length } from './http.js';

/** @typedef {import('./config.js').Limits} Limits */

/**
 * @typedef {{ query: string, options: Record<string, unknown>, minGeneration: number }} SearchRequest
 */

/**
 * Query-string forms the JSON of an option has no room for:
 * `fields=title:2,text`, `sort=timestamp:desc`, `storedFields=title,kind`.
 * @type {Record<string, (value: string) => unknown>}
 */
const SHORTHANDS = {
  fields: weights,
  sort: (value) => {
    const [field, order] = value.split(':');
    return order === undefined ? { field } : { field, order };
  },
  storedFields: (value) => value.split(',').filter(Boolean),
};

/**
 * A search from a query string: `q`, `minGeneration`, and every other
 * parameter a search option of the same name, its value read as JSON when
 * it reads as JSON (`limit=5`, `prefix=true`, `filter={"kind":"rule"}`),
 * else through the option's shorthand, else as text (`mode=and`). The
 * engine checks the options as it checks a POST body's (names, types,
 * values: the same USAGE/SCHEMA errors), so a new option needs no change
 * here.
 *
 * @param {URLSearchParams} params
 * @param {Limits} limits
 * @returns {SearchRequest}
 */
export function searchFromQuery(params, limits) {
  /** @type {Record<string, unknown>} */
  const options = {};
  let query = '';
  let minGeneration = 0;
  for (const [name, value] of params) {
    if (name === 'q') query = value;
    else if (name === 'minGeneration') minGeneration = integer(name, value);
    else options[name] = queryValue(name, value);
  }
  return checked({ query, options, minGeneration }, limits);
}

/** @param {string} name @param {string} value */
function queryValue(name, value) {
  if (value === '') return true; // a bare flag: `?prefix`
  if (/^(?:[[{"\d-]|true$|false$|null$)/.test(value)) {
    try {
      return JSON.parse(value);
    } catch {
      // not JSON after all: a shorthand or text (the engine judges it)
    }
  }
  const shorthand = SHORTHANDS[name];
  return shorthand ? shorthand(value) : value;
}

/**
 * @param {unknown} body
 * @param {Limits} limits
 * @returns {SearchRequest}
 */
export function searchFromBody(body, limits) {
  if (!isObject(body)) throw badRequest('the search body must be a JSON object such as {"query": "deploy friday", "limit": 5}');
  // The options go to the engine as they are: it checks names, types and
  // values (USAGE/SCHEMA, the same errors as the package's search()).
  const { query = '', minGeneration = 0, ...options } = /** @type {Record<string, unknown>} */ (body);
  if (typeof query !== 'string') throw badRequest('"query" must be a string');
  if (!Number.isInteger(minGeneration) || /** @type {number} */ (minGeneration) < 0) {
    throw badRequest('"minGeneration" must be a non-negative integer');
  }
  return checked({ query, options, minGeneration: /** @type {number} */ (minGeneration) }, limits);
}

/** @param {SearchRequest} r @param {Limits} limits */
function checked(r, limits) {
  if (utf8Length(r.query) > limits.maxQueryBytes) {
    throw limitError('maxQueryBytes', `the query is longer than ${limits.maxQueryBytes} bytes`, 400);
  }
  const limit = r.options.limit;
  if (typeof limit === 'number' && limit > limits.maxLimit) {
    throw limitError('maxLimit', `limit is at most ${limits.maxLimit}`, 400);
  }
  // `expand` adds up to its own `limit` documents to the page: the same cap.
  const expand = /** @type {any} */ (r.options).expand;
  if (expand && typeof expand === 'object' && typeof expand.limit === 'number' && expand.limit > limits.maxLimit) {
    throw limitError('maxLimit', `expand.limit is at most ${limits.maxLimit}`, 400);
  }
  return r;
}

/**
 * The minimum generation of a read (`?minGeneration=`), 0 when absent.
 *
 * @param {URLSearchParams} params
 * @param {string[]} [allowed]  other parameter names the route takes
 */
export function readParams(params, allowed = []) {
  let minGeneration = 0;
  for (const [name, value] of params) {
    if (name === 'minGeneration') minGeneration = integer(name, value);
    else if (!allowed.includes(name)) {
      throw badRequest(`unknown parameter "${name}"; known: ${['minGeneration', ...allowed].join(', ')}`);
    }
  }
  return { minGeneration };
}

/**
 * `prefix` and `limit` of /suggest.
 *
 * @param {URLSearchParams} params
 * @param {Limits} limits
 */
export function suggestParams(params, limits) {
  const { minGeneration } = readParams(params, ['prefix', 'limit']);
  const prefix = params.get('prefix');
  if (prefix === null || prefix === '') throw badRequest('pass the word start to complete as ?prefix=');
  if (utf8Length(prefix) > limits.maxQueryBytes) throw limitError('maxQueryBytes', `prefix is longer than ${limits.maxQueryBytes} bytes`, 400);
  const limit = params.has('limit') ? integer('limit', /** @type {string} */ (params.get('limit'))) : 10;
  if (limit > limits.maxLimit) throw limitError('maxLimit', `limit is at most ${limits.maxLimit}`, 400);
  return { prefix, limit, minGeneration };
}

/** @param {string} name @param {string} value */
function integer(name, value) {
  if (!/^\d{1,15}$/.test(value)) throw badRequest(`"${name}" must be a non-negative integer, got "${value.slice(0, 40)}"`);
  return Number(value);
}

/** @param {string} name @param {string} value */
function number(name, value) {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) throw badRequest(`"${name}" must be a number, got "${value.slice(0, 40)}"`);
  return n;
}

/** `title:3,text` -> { title: 3, text: 1 } */
function weights(/** @type {string} */ value) {
  /** @type {Record<string, number>} */
  const out = {};
  for (const part of value.split(',').filter(Boolean)) {
    const [field, w] = part.split(':');
    out[field] = w === undefined ? 1 : number('fields', w);
  }
  return out;
}
