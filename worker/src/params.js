// @ts-check
// Search, suggest and read parameters, from a query string (GET) or a JSON
// body (POST). Both give the package's SearchOptions; the package checks
// the values it understands (its USAGE/SCHEMA errors become 400s), this
// file checks what HTTP adds (types of query-string values, unknown names,
// the limits) so a typo is a 400 that names it, not an ignored option.
import { badRequest, limitError } from './errors.js';
import { isObject, utf8Length } from './http.js';

/** @typedef {import('./config.js').Limits} Limits */

export const SEARCH_OPTIONS = [
  'mode',
  'syntax',
  'limit',
  'offset',
  'minHits',
  'fields',
  'filter',
  'prefix',
  'fuzzy',
  'highlight',
  'explain',
  'k1',
  'b',
  'storedFields',
  'sort',
  'proximity',
  'strategy',
  'expand',
  'recency',
  'diversity',
  'dedupe',
];

/**
 * @typedef {{ query: string, options: Record<string, unknown>, minGeneration: number }} SearchRequest
 */

/**
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
    switch (name) {
      case 'q':
        query = value;
        break;
      case 'minGeneration':
        minGeneration = integer(name, value);
        break;
      case 'mode':
      case 'syntax':
      case 'strategy':
        options[name] = value;
        break;
      case 'limit':
      case 'offset':
      case 'minHits':
        options[name] = integer(name, value);
        break;
      case 'k1':
      case 'b':
        options[name] = number(name, value);
        break;
      case 'prefix':
      case 'explain':
        options[name] = bool(name, value);
        break;
      case 'fuzzy':
        options[name] = value === 'true' ? true : value === 'false' ? false : integer(name, value);
        break;
      case 'highlight':
      case 'proximity':
        options[name] = value.startsWith('{') ? jsonParam(name, value) : bool(name, value);
        break;
      case 'storedFields':
        options[name] = value === 'true' ? true : value === 'false' ? false : value.split(',').filter(Boolean);
        break;
      case 'fields':
        options[name] = value.startsWith('{') ? jsonParam(name, value) : weights(value);
        break;
      case 'filter':
      case 'recency':
        options[name] = jsonParam(name, value);
        break;
      case 'expand':
      case 'diversity':
        // JSON (`{"hops":2}`), or true/false; a bare number is diversity's lambda.
        options[name] = value.startsWith('{') ? jsonParam(name, value) : value === 'true' || value === 'false' ? bool(name, value) : number(name, value);
        break;
      case 'dedupe':
        options[name] = bool(name, value);
        break;
      case 'sort': {
        if (value.startsWith('{')) options[name] = jsonParam(name, value);
        else {
          const [field, order] = value.split(':');
          options[name] = order === undefined ? { field } : { field, order };
        }
        break;
      }
      default:
        throw badRequest(`unknown search parameter "${name}"; known: q, minGeneration, ${SEARCH_OPTIONS.join(', ')}`);
    }
  }
  return checked({ query, options, minGeneration }, limits);
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

/** @param {string} name @param {string} value */
function bool(name, value) {
  if (value === 'true' || value === '1' || value === '') return true;
  if (value === 'false' || value === '0') return false;
  throw badRequest(`"${name}" must be true or false, got "${value.slice(0, 40)}"`);
}

/** @param {string} name @param {string} value */
function jsonParam(name, value) {
  try {
    return JSON.parse(value);
  } catch {
    throw badRequest(`"${name}" must be JSON (URL-encoded), e.g. ${name === 'filter' ? '{"kind":"rule"}' : '{"title":2}'}`);
  }
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
