// What goes into the engine: documents as JSON text (in batches for bulk
// adds) with their Float32Array members beside it as floats, ids, search
// options and filters. The engine validates shapes,
// fields and ranges (one validator, one set of messages); this module only
// catches what JSON cannot carry.
import { MemdexError, describe, isObject, usage } from './memdex-error.js';
import { toMemdexError } from './realm.js';

/** @typedef {import('./memdex.js').Engine} Engine */

/** @returns {Promise<unknown>} */
export function yieldToEventLoop() {
  // `scheduler` is not in every lib.dom (nor in Node before 22).
  const { scheduler } = /** @type {{ scheduler?: { yield?: () => Promise<void> } }} */ (/** @type {unknown} */ (globalThis));
  return typeof scheduler?.yield === 'function' ? scheduler.yield() : new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * The error `addMany` and `addAll` stop with: the rejected document's own code and
 * reason, a message naming it, and `added` (how many documents before it were
 * added; they stay). `err` is a MemdexError or an engine error.
 * @param {unknown} err
 * @param {number} added
 * @param {unknown} id
 * @param {string} [method]
 */
export function rejectedDocument(err, added, id, method = 'addMany') {
  const converted = toMemdexError(err);
  const cause =
    converted instanceof MemdexError ? converted : new MemdexError('INTERNAL', String(/** @type {Error} */ (converted)?.message ?? converted));
  const e = new MemdexError(
    cause.code,
    `${method} stopped at document ${added + 1} (${id === undefined ? 'no id' : `id ${describe(id)}`}): ${cause.message}. ` +
      `The ${added} documents before it were added; fix or drop this one, then add the rest.`,
    { cause },
  );
  e.added = added;
  if (cause.reason !== undefined) e.reason = cause.reason;
  if (cause.data !== undefined) e.data = cause.data;
  return e;
}

/**
 * Documents on their way into the engine as JSON lines: one boundary crossing
 * per batch instead of per document (about 20% faster bulk builds, measured
 * on 100k documents), their vectors in one float buffer beside the text
 * (`FloatMembers`). Stops at the first rejected document with `rejectedDocument`;
 * the valid ones before it are added, never dropped.
 */
export class JsonLinesBatch {
  #engine;
  #wrote;
  #size;
  #method;
  /** @type {string[]} */
  #lines = [];
  #floats = new FloatMembers();
  added = 0;

  /**
   * @param {string} method the API method named in errors
   * @param {() => Engine} engine the current engine (looked up per batch)
   * @param {(n: number) => void} wrote counts added documents
   * @param {number} [size]
   */
  constructor(method, engine, wrote, size = 1000) {
    this.#method = method;
    this.#engine = engine;
    this.#wrote = wrote;
    this.#size = size;
  }

  /**
   * Queues a document; returns true when that filled a batch and sent it.
   * @param {unknown} doc
   */
  push(doc) {
    const vectors = vectorFields(this.#engine());
    let line;
    try {
      line = this.#floats.take(doc, this.#lines.length, vectors);
    } catch (err) {
      this.flush();
      throw rejectedDocument(err, this.added, /** @type {{ id?: unknown } | null} */ (doc)?.id, this.#method);
    }
    this.#lines.push(line);
    if (this.#lines.length < this.#size) return false;
    this.flush();
    return true;
  }

  flush() {
    if (this.#lines.length === 0) return;
    const engine = this.#engine();
    const lines = this.#lines;
    const floats = this.#floats;
    this.#lines = [];
    this.#floats = new FloatMembers();
    let ok;
    try {
      ok = floats.send(engine, lines.join('\n'));
    } catch (thrown) {
      // The engine stops at the first rejected line and says how many
      // before it went in; anything else (a trap) is not about a document.
      const err = /** @type {import('./realm.js').EngineError | undefined} */ (thrown);
      const before = err?.added;
      if (before === undefined || !Number.isInteger(before)) throw toMemdexError(thrown);
      this.added += before;
      if (before > 0) this.#wrote(before);
      throw rejectedDocument(thrown, this.added, JSON.parse(lines[before]).id, this.#method);
    }
    this.added += ok;
    if (ok > 0) this.#wrote(ok);
  }
}

/** @type {WeakMap<Engine, Set<string>>} */
const vectorFieldsOf = new WeakMap();

/**
 * The engine's vector fields (asked once an engine).
 * @param {Engine} engine
 * @returns {Set<string>}
 */
export function vectorFields(engine) {
  let names = vectorFieldsOf.get(engine);
  if (names === undefined) {
    names = new Set(/** @type {string[]} */ (JSON.parse(engine.vectorFields())));
    vectorFieldsOf.set(engine, names);
  }
  return names;
}

/**
 * The vector members of a batch of documents: one float buffer, and for
 * each member its line, length and key. They cross into the engine as
 * floats (a copy) instead of JSON text (~20 bytes written and parsed a
 * number; bench/js/vectors-build.mjs measures both). Taken: every Float32Array (its floats are exactly the numbers JSON would
 * carry), and number arrays and other typed arrays in vector fields (which
 * keep 32-bit floats of them anyway).
 */
export class FloatMembers {
  /** @type {Float32Array[]} */
  arrays = [];
  /** @type {number[]} line, length of each member */
  layout = [];
  /** @type {string[]} */
  keys = [];
  total = 0;

  /**
   * The document's JSON text without the members this takes (as line
   * `line` of the batch; `vectors`: the vector fields). Members holding a
   * NaN, ±Infinity or a non-number stay in the text, where `documentJson`
   * or the engine names the element; so does `id` (rejected documents are
   * named by it) and a document with its own `toJSON`.
   * @param {unknown} doc
   * @param {number} line
   * @param {Set<string>} vectors
   * @returns {string}
   */
  take(doc, line, vectors) {
    if (!isObject(doc) || typeof doc.toJSON === 'function') return documentJson(doc);
    let rest = doc;
    for (const key of Object.keys(doc)) {
      if (key === 'id') continue;
      const v = floatsOf(doc[key], vectors.has(key));
      if (v === undefined) continue;
      if (rest === doc) rest = { ...doc };
      delete rest[key];
      this.arrays.push(v);
      this.layout.push(line, v.length);
      this.keys.push(key);
      this.total += v.length;
    }
    return documentJson(rest);
  }

  /**
   * Adds the JSON lines `text` with these members; returns how many documents were added.
   * @param {Engine} engine
   * @param {string} text
   * @returns {number}
   */
  send(engine, text) {
    if (this.keys.length === 0) return engine.addJsonLines(text);
    let floats = this.arrays[0];
    if (this.arrays.length > 1) {
      floats = new Float32Array(this.total);
      let at = 0;
      for (const a of this.arrays) {
        floats.set(a, at);
        at += a.length;
      }
    }
    return engine.addJsonLinesFloats(text, floats, Uint32Array.from(this.layout), JSON.stringify(this.keys));
  }
}

/**
 * A member's value as floats, or undefined when it stays JSON text: a
 * Float32Array (from any realm) of finite numbers; in a vector field
 * (`vector`) also an array or typed array of finite numbers, rounded to
 * 32-bit floats as the engine rounds the numbers of JSON text.
 * @param {unknown} v
 * @param {boolean} vector
 * @returns {Float32Array | undefined}
 */
function floatsOf(v, vector) {
  const f32 = ArrayBuffer.isView(v) && /** @type {{ [Symbol.toStringTag]?: string }} */ (v)[Symbol.toStringTag] === 'Float32Array';
  if (!(f32 || (vector && (Array.isArray(v) || (ArrayBuffer.isView(v) && !(v instanceof DataView)))))) return undefined;
  const list = /** @type {ArrayLike<unknown>} */ (v);
  for (let i = 0; i < list.length; i++) {
    const x = list[i];
    // x - x is 0 exactly for finite numbers.
    if (typeof x !== 'number' || x - x !== 0) return undefined;
  }
  return f32 ? /** @type {Float32Array} */ (v) : new Float32Array(/** @type {ArrayLike<number>} */ (list));
}

/**
 * A document as the JSON text the engine reads (it validates everything
 * else: shape, id, namespace, fields; one validator, one set of messages).
 * JSON cannot say a few things a JS object can: `undefined`, a function or
 * a symbol as the whole document (JSON.stringify returns undefined); JSON.stringify writes
 * NaN and ±Infinity as null (the engine would then drop the field), and
 * past its own stack depth it throws a plain RangeError (cycles and BigInt
 * a TypeError). Those become MemdexErrors naming the field or the limit
 * (127 levels: the engine's JSON parser stops there with LIMIT too).
 * @param {unknown} doc
 * @returns {string}
 */
export function documentJson(doc) {
  let json;
  try {
    json = JSON.stringify(plainVectors(doc));
  } catch (err) {
    const deep = err instanceof RangeError;
    throw new MemdexError(
      deep ? 'LIMIT' : 'SCHEMA',
      `${deep ? 'the document nests arrays and objects deeper than 127 levels' : 'the document is not JSON'} (${/** @type {Error} */ (err)?.message})`,
      { cause: err },
    );
  }
  if (json === undefined) {
    throw new MemdexError('SCHEMA', `schema error on field \`document\`: must be a JSON object like {"id": "m1", "text": "..."}, got ${describe(doc)}`);
  }
  // A `null` value (the word in a string rarely matches) may be a NaN.
  const bad = /[:,[]null[,\]}]/.test(json) && nonFinite(doc, '');
  if (bad) throw new MemdexError('SCHEMA', `schema error on field \`${bad[0]}\`: ${bad[1]}`);
  return json;
}

/**
 * A document whose typed-array fields (a `Float32Array` embedding) are
 * number arrays: JSON.stringify would write a typed array as an object.
 * @param {unknown} doc
 * @returns {unknown}
 */
function plainVectors(doc) {
  if (!isObject(doc)) return doc;
  let out = doc;
  for (const key of Object.keys(doc)) {
    const v = doc[key];
    if (ArrayBuffer.isView(v) && !(v instanceof DataView)) {
      if (out === doc) out = { ...doc };
      out[key] = Array.from(/** @type {Float32Array} */ (v));
    }
  }
  return out;
}

/**
 * The first NaN, ±Infinity or invalid Date JSON.stringify would write as null: [path, what is wrong].
 * @param {unknown} value
 * @param {string} path
 * @returns {[string, string] | false}
 */
function nonFinite(value, path) {
  // A Date is sent as its ISO string (toJSON); an invalid one would be null.
  if (value instanceof Date && Number.isNaN(value.getTime())) return [path, 'an invalid Date is not a date'];
  const withJson = /** @type {{ toJSON?: unknown } | null | undefined} */ (value);
  if (typeof withJson?.toJSON === 'function') value = withJson.toJSON();
  if (value instanceof Number) value = value.valueOf();
  if (typeof value === 'number') return !Number.isFinite(value) && [path, `${value} is not a finite number`];
  if (value === null || typeof value !== 'object') return false;
  const array = Array.isArray(value);
  const entries = /** @type {Record<string, unknown>} */ (value);
  for (const key of Object.keys(entries)) {
    const bad = nonFinite(entries[key], array ? `${path}[${key}]` : path ? `${path}.${key}` : key);
    if (bad) return bad;
  }
  return false;
}

/**
 * @param {unknown} id
 * @returns {asserts id is string}
 */
export function checkId(id) {
  if (typeof id !== 'string' || id === '') throw usage(`an id must be a non-empty string, got ${describe(id)}`);
}

/**
 * The `limit` of `suggest(prefix, options)` (a number, or `{ limit }`; default 10), after checking both.
 * @param {unknown} prefix
 * @param {unknown} options
 * @returns {number}
 */
export function suggestLimit(prefix, options) {
  if (typeof prefix !== 'string') throw usage('suggest(prefix): prefix must be a string');
  const limit = typeof options === 'number' ? options : (/** @type {{ limit?: unknown } | undefined} */ (options)?.limit ?? 10);
  if (!(Number.isInteger(limit) && /** @type {number} */ (limit) >= 0)) throw usage('suggest: `limit` must be a non-negative integer');
  return /** @type {number} */ (limit);
}

/**
 * Whether `get` options ask for vectors (`{ vectors: true }`).
 * @param {unknown} options
 * @returns {boolean}
 */
export function wantsVectors(options) {
  if (options === undefined || options === null) return false;
  if (!isObject(options)) throw usage(`get(id, options): options must be an object like { vectors: true }, got ${describe(options)}`);
  for (const key of Object.keys(options)) {
    if (key !== 'vectors') throw usage(`get: unknown option \`${key}\`; expected vectors`);
  }
  if (options.vectors !== undefined && typeof options.vectors !== 'boolean') {
    throw usage(`get: \`vectors\` must be a boolean, got ${describe(options.vectors)}`);
  }
  return options.vectors === true;
}

/**
 * Checks the changes of `patch(id, changes)` before anything is read.
 * @param {string} id
 * @param {unknown} changes
 * @returns {Record<string, unknown>}
 */
export function checkChanges(id, changes) {
  if (!isObject(changes)) throw usage(`patch(id, changes): changes must be an object of fields, e.g. { text: '...' }, got ${describe(changes)}`);
  if (changes.id !== undefined && changes.id !== id) {
    throw usage(`patch cannot change a document's id (${describe(id)} to ${describe(changes.id)}); add the document under the new id and remove the old one`);
  }
  return changes;
}

/**
 * A stored document (with its vectors) with `changes` applied: a field
 * given replaces the stored one, `null` removes it, `undefined` (as JSON
 * leaves it out) keeps it.
 * @param {Record<string, unknown>} stored
 * @param {Record<string, unknown>} changes
 * @returns {Record<string, unknown>}
 */
export function patched(stored, changes) {
  const doc = { ...stored };
  for (const [key, value] of Object.entries(changes)) {
    if (key === 'id' || value === undefined) continue;
    if (value === null) delete doc[key];
    else doc[key] = value;
  }
  return doc;
}

/**
 * The search options as the engine gets them (undefined: none).
 * @param {unknown} query
 * @param {unknown} options
 * @returns {Record<string, unknown> | undefined}
 */
export function checkSearch(query, options) {
  if (typeof query !== 'string') throw new MemdexError('INVALID_QUERY', `the query must be a string, got ${describe(query)}`);
  if (options === undefined || options === null) return undefined;
  if (!isObject(options)) throw usage('search options must be an object');
  checkJsonable(options, 'search option');
  return options;
}

/**
 * Catches what JSON cannot carry to the engine, which validates everything
 * else (names, types, ranges: one validator, one set of messages): NaN and
 * ±Infinity (JSON would turn them into null, read as "not given"),
 * functions, bigints and symbols.
 * @param {unknown} value
 * @param {string} what
 * @param {string} [path]
 * @param {number} [depth]
 */
export function checkJsonable(value, what, path = '', depth = 0) {
  if (value instanceof Date && Number.isNaN(value.getTime())) {
    throw usage(`${what} \`${path}\` is an invalid Date`);
  } else if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw usage(`${what} \`${path}\` must be a finite number, got ${value}`);
  } else if (typeof value === 'function' || typeof value === 'bigint' || typeof value === 'symbol') {
    throw usage(`${what} \`${path}\` cannot be a ${typeof value}`);
  } else if (value !== null && typeof value === 'object' && !ArrayBuffer.isView(value) && !(value instanceof Date)) {
    if (depth > 32) throw usage(`${what} \`${path}\` is nested too deeply`);
    for (const [k, v] of Object.entries(value)) checkJsonable(v, what, path ? `${path}.${k}` : k, depth + 1);
  }
}

/**
 * @param {unknown} filter
 * @param {string} what
 */
export function checkFilter(filter, what) {
  if (filter === undefined || filter === null) return undefined;
  checkJsonable(filter, `${what} filter`);
  return filter;
}

/**
 * Runs checked write operations (Memdex#update(operations)) on `index`,
 * adds and patches through `write` (the index's own, or embedding first);
 * a synchronous `write` runs them all without yielding. Counts what was
 * added (adds and patches) and removed.
 * @param {{ remove(id: string): boolean, removeWhere(filter: import('./index.js').Filter): number }} index
 * @param {import('./core.js').WriteOperation[]} ops
 * @param {{ add(doc: import('./index.js').MemdexDocument): unknown, patch(id: string, changes: Record<string, unknown>): unknown }} write
 */
export async function runOperations(index, ops, write) {
  let added = 0;
  let removed = 0;
  for (const o of ops) {
    if (o.op === 'add' || o.op === 'patch') {
      const done = o.op === 'add' ? write.add(o.doc) : write.patch(o.id, o.changes);
      if (done instanceof Promise) await done;
      added++;
    } else if (o.op === 'remove') {
      if (index.remove(o.id)) removed++;
    } else {
      removed += index.removeWhere(o.filter);
    }
  }
  return { added, removed };
}
