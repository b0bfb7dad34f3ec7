// Environment-independent part of the memdex JS API: `MemdexBase`, a thin
// layer over the wasm `Engine` (argument shapes, error mapping, commit
// queueing, auto-commit, lifecycle). Each entry point (index.js for
// browsers, node.js, workerd.js) exports a subclass whose `static platform`
// says how it loads the .wasm, which storage adapters it offers and how it
// locks (see `Platform`).
import { Engine, loadIndex, recoverIndex, __memdexReset } from './memdex.js';
import { pack } from './pack.js';

/** An error raised by memdex, with a stable machine-readable `code`. */
export class MemdexError extends Error {
  /** @type {string | undefined} a storage adapter's own code (`QUOTA_EXCEEDED`, ...), when it gave one */
  reason = undefined;
  /** @type {number | undefined} documents added before the rejected one (`addMany`, `addAll`) */
  added = undefined;
  /** @type {{ pid?: number, host?: string, since?: string } | undefined} the lock's holder (`LOCKED`) */
  holder = undefined;

  /**
   * @param {string} code
   * @param {string} message
   * @param {ErrorOptions} [options]
   */
  constructor(code, message, options) {
    super(message, options);
    this.name = 'MemdexError';
    this.code = code;
  }
}

/**
 * The one wasm instance of this realm (a page, a worker, a Node process).
 * A trap (a Rust panic or allocation failure, compiled with panic=abort;
 * out-of-bounds access) leaves it unusable: borrow flags stuck, allocator
 * state unknown. The trapping call answers INTERNAL; every open index of the
 * realm then drops its engine, and the next call re-instantiates the wasm
 * (once, from the compiled module) and reloads that index from storage.
 * `inflight` counts async engine calls (commits, loads): they resume inside
 * the old instance, so it is reset only once they have settled.
 */
const realm = {
  epoch: 0, // bumped by each trap: wasm objects of an older epoch are never freed into the new instance
  dead: false,
  inflight: 0,
  /** @type {(() => void) | null} */ drained: null,
  /** @type {Promise<unknown> | null} */ reviving: null,
  /** @type {WebAssembly.Module | undefined} the compiled module, instantiated again after a trap */ module: undefined,
  /** @type {Set<{ engine: any, epoch: number, crashed?: boolean, wake?: () => void }>} engine boxes of the open indexes */
  boxes: new Set(),
};

function trapped() {
  if (realm.dead) return;
  realm.dead = true;
  realm.epoch++;
  for (const box of realm.boxes) {
    box.engine = undefined; // its memory dies with the instance; never free() it into the next one
    box.crashed = true;
  }
  for (const box of realm.boxes) box.wake?.();
}

/** Runs an async engine call, counted so a dead instance is reset only after it. */
async function engineAsync(start) {
  realm.inflight++;
  try {
    return await start(); // a trap may also throw before the promise exists
  } catch (err) {
    throw toMemdexError(err);
  } finally {
    if (--realm.inflight === 0) realm.drained?.();
  }
}

/** A fresh wasm instance after a trap (shared by every index of the realm). */
function revive(platform) {
  realm.reviving ??= (async () => {
    if (realm.inflight > 0) await new Promise((resolve) => (realm.drained = () => resolve(undefined)));
    realm.drained = null;
    realm.module = __memdexReset() ?? realm.module; // kept if this load fails and is retried
    await platform.loadWasm(realm.module);
    realm.dead = false;
  })().finally(() => {
    realm.reviving = null;
  });
  return realm.reviving;
}

/** Frees a wasm object of epoch `epoch` unless its instance is gone. */
function dispose(obj, epoch) {
  if (!obj) return;
  if (epoch === realm.epoch && !realm.dead) obj.free?.();
  else obj.__destroy_into_raw?.();
}

// Errors thrown by the wasm layer are JS Errors carrying `code`; a wasm trap
// (a Rust panic, compiled with panic=abort) surfaces as a WebAssembly.RuntimeError.
export function toMemdexError(err) {
  if (err instanceof MemdexError) return err;
  if (err && typeof err.code === 'string') {
    // The engine's own error (named MemdexError by the wasm layer) carries
    // nothing more than its code, message and reason, and its stack is glue
    // code: no `cause` for it, so an uncaught one prints short.
    const e = new MemdexError(err.code, err.message, err.name === 'MemdexError' ? undefined : { cause: err });
    if (err.reason !== undefined) e.reason = err.reason;
    if (err.holder !== undefined) e.holder = err.holder;
    return e;
  }
  if (typeof WebAssembly !== 'undefined' && err instanceof WebAssembly.RuntimeError) {
    trapped();
    return new MemdexError(
      'INTERNAL',
      `memdex engine crashed: ${err.message}; it restarts on the next call, reloading the index from storage (writes not yet committed are lost)`,
      { cause: err },
    );
  }
  return err;
}

/** `call(fn)` for a search, with the wall time it took as `tookMs`. */
function timed(fn) {
  const started = performance.now();
  const results = call(fn);
  results.tookMs = performance.now() - started;
  return results;
}

function call(fn) {
  try {
    return fn();
  } catch (err) {
    throw toMemdexError(err);
  }
}

const usage = (message) => new MemdexError('USAGE', message);
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const yieldToEventLoop = () =>
  typeof globalThis.scheduler?.yield === 'function'
    ? globalThis.scheduler.yield()
    : new Promise((resolve) => setTimeout(resolve, 0));

/**
 * The error `addMany` and `addAll` stop with: the rejected document's own code and
 * reason, a message naming it, and `added` (how many documents before it were
 * added; they stay). `err` is a MemdexError or an engine error.
 */
export function rejectedDocument(err, added, id, method = 'addMany') {
  const cause = toMemdexError(err);
  const e = new MemdexError(
    cause.code,
    `${method} stopped at document ${added + 1} (${id === undefined ? 'no id' : `id ${describe(id)}`}): ${cause.message}. ` +
      `The ${added} documents before it were added; fix or drop this one, then add the rest.`,
    { cause },
  );
  e.added = added;
  if (cause.reason !== undefined) e.reason = cause.reason;
  return e;
}

/**
 * Documents on their way into the engine as JSON lines: one boundary crossing
 * per batch instead of per document (about 20% faster bulk builds, measured
 * on 100k documents). Stops at the first rejected document with
 * `rejectedDocument`; the valid ones before it are added, never dropped.
 */
class JsonLinesBatch {
  #engine;
  #wrote;
  #size;
  #method;
  #lines = [];
  added = 0;

  /** `engine` returns the current engine (looked up per batch). */
  constructor(method, engine, wrote, size = 1000) {
    this.#method = method;
    this.#engine = engine;
    this.#wrote = wrote;
    this.#size = size;
  }

  /** Queues a document; returns true when that filled a batch and sent it. */
  push(doc) {
    let line;
    try {
      line = documentJson(doc);
    } catch (err) {
      this.flush();
      throw rejectedDocument(err, this.added, doc?.id, this.#method);
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
    this.#lines = [];
    let ok;
    try {
      ok = engine.addJsonLines(lines.join('\n'));
    } catch (err) {
      // The engine stops at the first rejected line and says how many
      // before it went in; anything else (a trap) is not about a document.
      if (!Number.isInteger(err?.added)) throw toMemdexError(err);
      this.added += err.added;
      if (err.added > 0) this.#wrote(err.added);
      throw rejectedDocument(err, this.added, JSON.parse(lines[err.added]).id, this.#method);
    }
    this.added += ok;
    if (ok > 0) this.#wrote(ok);
  }
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
 */
function documentJson(doc) {
  let json;
  try {
    json = JSON.stringify(plainVectors(doc));
  } catch (err) {
    const deep = err instanceof RangeError;
    throw new MemdexError(
      deep ? 'LIMIT' : 'SCHEMA',
      `${deep ? 'the document nests arrays and objects deeper than 127 levels' : 'the document is not JSON'} (${err?.message})`,
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
 */
function plainVectors(doc) {
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

/** The first NaN, ±Infinity or invalid Date JSON.stringify would write as null: [path, what is wrong]. */
function nonFinite(value, path) {
  // A Date is sent as its ISO string (toJSON); an invalid one would be null.
  if (value instanceof Date && Number.isNaN(value.getTime())) return [path, 'an invalid Date is not a date'];
  if (typeof value?.toJSON === 'function') value = value.toJSON();
  if (value instanceof Number) value = value.valueOf();
  if (typeof value === 'number') return !Number.isFinite(value) && [path, `${value} is not a finite number`];
  if (value === null || typeof value !== 'object') return false;
  const array = Array.isArray(value);
  for (const key of Object.keys(value)) {
    const bad = nonFinite(value[key], array ? `${path}[${key}]` : path ? `${path}.${key}` : key);
    if (bad) return bad;
  }
  return false;
}

function checkId(id) {
  if (typeof id !== 'string' || id === '') throw usage(`an id must be a non-empty string, got ${describe(id)}`);
}

function describe(v) {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v)}`;
}

function checkSearch(query, options) {
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
 */
function checkJsonable(value, what, path = '', depth = 0) {
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

function checkFilter(filter, what) {
  if (filter === undefined || filter === null) return undefined;
  checkJsonable(filter, `${what} filter`);
  return filter;
}

const OPEN_OPTIONS = new Set([
  'name', 'storage', 'dir', 'database', 'schema', 'defaultSchema', 'language', 'analyzer', 'k1', 'b', 'autoCommit', 'wasm', 'onError',
]);

/** Options removed in 0.x: an error naming the replacement, never a silently different index. */
function refuseRemoved(options) {
  if (options.fields !== undefined) {
    throw usage('`fields` was removed in 0.x: pass `schema` (it adds to the default fields), with `defaultSchema: false` for your fields only');
  }
}

/** Engine config from the friendly options (undefined = default / stored). */
function engineConfig(options) {
  const { schema, defaultSchema, language, analyzer, k1, b } = options;
  refuseRemoved(options);
  const config = {};
  // `schema` adds to the default fields (the engine reads and checks it).
  if (schema !== undefined) config.schema = schema;
  if (defaultSchema !== undefined) config.defaultSchema = defaultSchema;
  if (analyzer !== undefined) {
    if (!isObject(analyzer)) throw usage('`analyzer` must be an object');
    config.analyzer = { ...analyzer };
  }
  if (language !== undefined) {
    if (typeof language !== 'string') throw usage('`language` must be a string such as "english" or "none"');
    config.analyzer = { ...config.analyzer, language };
  }
  if (k1 !== undefined) config.k1 = k1;
  if (b !== undefined) config.b = b;
  return Object.keys(config).length ? config : undefined;
}

const AUTO_COMMIT = { delayMs: 1000, maxDelayMs: 2000, maxWrites: 100 };

// `delayMs` restarts with every write (a burst commits once); `maxDelayMs`
// bounds how long any write waits, so a steady writer still commits.
function autoCommitSettings(value, persistent) {
  if (value === undefined) value = persistent;
  if (value === false || value === null) return null;
  if (value === true) return { ...AUTO_COMMIT };
  if (!isObject(value)) throw usage('`autoCommit` must be false, true or { delayMs, maxDelayMs, maxWrites }');
  for (const key of Object.keys(value)) {
    if (!(key in AUTO_COMMIT)) throw usage(`unknown option \`autoCommit.${key}\`; expected delayMs, maxDelayMs or maxWrites`);
  }
  const { delayMs = AUTO_COMMIT.delayMs, maxWrites = AUTO_COMMIT.maxWrites } = value;
  const maxDelayMs = value.maxDelayMs ?? Math.max(AUTO_COMMIT.maxDelayMs, delayMs);
  if (!(Number.isFinite(delayMs) && delayMs >= 0)) throw usage('`autoCommit.delayMs` must be a number >= 0');
  if (!(Number.isFinite(maxDelayMs) && maxDelayMs >= delayMs)) throw usage('`autoCommit.maxDelayMs` must be a number >= `delayMs`');
  if (!(Number.isInteger(maxWrites) && maxWrites >= 1)) throw usage('`autoCommit.maxWrites` must be an integer >= 1');
  return { delayMs, maxDelayMs, maxWrites };
}

// Pages commit when they are hidden or unloaded (best effort: the browser
// may end the page before an IndexedDB transaction completes). The listener
// holds the index weakly, so an index dropped without close() can still be
// collected.
function watchPage(index) {
  const target = globalThis.document ? globalThis : null;
  if (!target || typeof target.addEventListener !== 'function' || typeof WeakRef !== 'function') return () => {};
  const ref = new WeakRef(index);
  const onHide = (event) => {
    // pagehide always; visibilitychange only when the page stops being visible.
    if (event.type === 'visibilitychange' && globalThis.document?.visibilityState === 'visible') return;
    ref.deref()?.flushOnHide();
  };
  target.addEventListener('pagehide', onHide);
  globalThis.document.addEventListener('visibilitychange', onHide);
  return () => {
    target.removeEventListener('pagehide', onHide);
    globalThis.document.removeEventListener('visibilitychange', onHide);
  };
}

// Backs up close(): engines of indexes dropped without close() are freed
// when the wrapper is garbage-collected (the engine itself holds no reference
// back to the wrapper).
const finalizer =
  typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry((box) => {
        realm.boxes.delete(box);
        if (box.engine) {
          try {
            dispose(box.engine, box.epoch);
          } catch {
            /* already freed */
          }
          box.engine = undefined;
        }
      })
    : null;

/**
 * What an environment gives memdex: how to load the wasm glue, which storage
 * adapters it offers by name, and the in-process (or cross-tab) writer lock.
 * Each entry point (index.js for browsers, node.js, workerd.js) makes one
 * and exports `class Memdex extends MemdexBase { static platform = ... }`.
 *
 * @typedef {object} Platform
 * @property {(source?: unknown) => unknown} loadWasm initialises the glue once
 * @property {Record<string, (options: any) => object>} storages named adapters ('memory', 'fs', 'indexeddb', ...)
 * @property {(name: string, fn: () => Promise<unknown>) => Promise<unknown>} withIndexLock
 */

/** @type {WeakMap<Platform, Promise<unknown>>} the glue's loading, once per platform */
const loading = new WeakMap();

/** @param {Platform} platform @param {unknown} source */
function ensureLoaded(platform, source) {
  if (realm.dead) return revive(platform);
  let load = loading.get(platform);
  if (!load) {
    load = Promise.resolve()
      .then(() => platform.loadWasm(source))
      .catch((err) => {
        loading.delete(platform); // allow a retry, e.g. after a network failure
        throw new MemdexError('WASM_LOAD', `could not load memdex_bg.wasm: ${err?.message ?? err}`, { cause: err });
      });
    loading.set(platform, load);
  }
  return load;
}

/** @param {Platform} platform @param {any} options */
function resolveStorage(platform, options) {
  const { storages } = platform;
  const spec = options.storage ?? 'memory';
  if (typeof spec === 'string') {
    const make = storages[spec];
    if (!make) {
      throw usage(
        `storage '${spec}' is not available in this environment; use one of ${Object.keys(storages)
          .map((s) => `'${s}'`)
          .join(', ')} or pass an adapter object { get, put, delete, list }`,
      );
    }
    return { adapter: make(options), persistent: spec !== 'memory' };
  }
  if (isObject(spec) && ['get', 'put', 'delete', 'list', 'swap'].every((m) => typeof spec[m] === 'function')) {
    return { adapter: spec, persistent: true };
  }
  throw usage(
    '`storage` must be a name (\'memory\', \'fs\', \'indexeddb\') or an adapter { get, put, delete, list, swap } (see memdex/storage)',
  );
}

/** The index name rule of open, import and recover (a key prefix in storage). */
function checkName(name) {
  if (typeof name !== 'string' || name === '' || /[\s/]/.test(name)) {
    throw usage(`\`name\` must be a non-empty string without spaces or '/', got ${describe(name)}`);
  }
  return name;
}

/**
 * Loads the last commit of `name` into a new engine (`empty()` when nothing
 * is stored), in a live instance: an engine crash during the load means
 * loading again in the restarted one.
 */
async function loadEngine(platform, adapter, name, config, empty) {
  for (;;) {
    if (realm.dead) await revive(platform);
    const epoch = realm.epoch;
    const loaded = await engineAsync(() => loadIndex(adapter, name));
    if (epoch !== realm.epoch) {
      dispose(loaded, epoch);
      continue;
    }
    try {
      return { engine: call(() => (loaded ? Engine.fromLoaded(loaded, config) : empty())), epoch, stored: loaded !== undefined };
    } finally {
      dispose(loaded, epoch);
    }
  }
}

/** The platform of the class a static method was called on. */
function platformOf(cls) {
  const platform = cls?.platform;
  if (!platform) throw usage('import Memdex from the package (memdex), not from memdex/core.js');
  return platform;
}

const token = Symbol('memdex');

/**
 * The environment-independent Memdex; entry points export a subclass
 * that sets `static platform`.
 */
export class MemdexBase {
  /** @type {Platform | undefined} set by each entry point's subclass */
  static platform = undefined;

  #box; // { engine, epoch, crashed, wake } — shared with the finalizer and the realm
  #platform;
  #config; // the engine config it was opened with (an empty index after a crash)
  #stale = false; // a failed write could not be dropped yet: reload before anything else
  #adapter;
  #name;
  #persistent;
  #auto;
  #onError;
  #timer = null;
  #firstPendingAt = 0; // when the oldest uncommitted write was made
  #unwatchPage = () => {};
  #writes = 0; // writes since the last prepared commit
  #inFlight = 0; // writes in the commit being written
  /** @type {Promise<unknown>} settles when the last queued operation has */
  #queue = Promise.resolve();
  #closed = false;
  #closing = null;

  /** Use `await Memdex.open(options)`; the constructor is private. */
  constructor(key, engine, init) {
    if (key !== token) throw usage('use `await Memdex.open(options)` to make an index');
    const { platform, adapter, name, persistent, autoCommit, onError, config } = init;
    const ref = typeof WeakRef === 'function' ? new WeakRef(this) : null;
    // After a crash every open index restarts at once (wake), held weakly.
    this.#box = { engine, epoch: realm.epoch, crashed: false, wake: () => ref?.deref()?.ready().catch(() => {}) };
    realm.boxes.add(this.#box);
    this.#config = config;
    this.#platform = platform;
    this.#adapter = adapter;
    this.#name = name;
    this.#persistent = persistent;
    this.#auto = autoCommit;
    this.#onError = onError ?? ((err) => console.error('memdex: auto-commit failed:', err));
    finalizer?.register(this, this.#box, this.#box);
    if (persistent && autoCommit) this.#unwatchPage = watchPage(this);
  }

  /**
   * Opens the index stored under `name` in `storage` (loading its last
   * commit), or creates an empty one.
   */
  static async open(options = {}) {
    if (!isObject(options)) throw usage('Memdex.open(options): options must be an object');
    refuseRemoved(options);
    for (const key of Object.keys(options)) {
      if (!OPEN_OPTIONS.has(key)) throw usage(`unknown option \`${key}\`; expected one of ${[...OPEN_OPTIONS].join(', ')}`);
    }
    const name = checkName(options.name ?? 'memdex');
    const config = engineConfig(options);
    const platform = platformOf(this);
    const { adapter, persistent } = resolveStorage(platform, options);
    const autoCommit = autoCommitSettings(options.autoCommit, persistent);
    await ensureLoaded(platform, options.wasm);
    const { engine } = await loadEngine(platform, adapter, name, config, () => new Engine(config));
    return new this(token, engine, { platform, adapter, name, persistent, autoCommit, onError: options.onError, config });
  }

  /**
   * Rebuilds the lost manifest of the index `name` in `storage` from the
   * blobs still there (what `open` calls a lost manifest, `CORRUPT`).
   * Pass the `schema` (and analyzer options) the index was created with.
   * Resolves to `{ segments, documents, skipped }`; then `open` it.
   */
  static async recover(options = {}) {
    if (!isObject(options)) throw usage('Memdex.recover(options): options must be an object');
    const name = checkName(options.name ?? 'memdex');
    const config = engineConfig(options);
    const platform = platformOf(this);
    const { adapter } = resolveStorage(platform, options);
    await ensureLoaded(platform, options.wasm);
    return engineAsync(() => recoverIndex(adapter, name, config));
  }

  /**
   * Browsers: set by the browser entry (index.js); elsewhere a `USAGE` error.
   * @param {any} [_options]
   * @returns {Promise<any>}
   */
  static async openInWorker(_options) {
    throw usage('openInWorker() needs a browser (Web Workers)');
  }

  /** An in-memory index (no persistence). Same as `open({ storage: 'memory', ... })`. */
  static async create(options = {}) {
    return this.open({ ...options, storage: 'memory' });
  }

  /** Rebuilds an index from `export()` bytes; `options` as for `open` (storage, name, autoCommit). */
  static async import(bytes, options = {}) {
    if (!(bytes instanceof Uint8Array)) throw usage('Memdex.import(bytes): bytes must be a Uint8Array from export()');
    if (!isObject(options)) throw usage('Memdex.import(bytes, options): options must be an object');
    refuseRemoved(options);
    for (const key of ['schema', 'defaultSchema', 'language', 'analyzer', 'k1', 'b']) {
      if (options[key] !== undefined) throw usage(`\`${key}\` cannot be changed by import(); the snapshot carries its schema`);
    }
    const name = checkName(options.name ?? 'memdex');
    const platform = platformOf(this);
    const { adapter, persistent } = resolveStorage(platform, options);
    const autoCommit = autoCommitSettings(options.autoCommit, persistent);
    await ensureLoaded(platform, options.wasm);
    const engine = call(() => Engine.importSnapshot(bytes));
    return new this(token, engine, { platform, adapter, name, persistent, autoCommit, onError: options.onError });
  }

  get #engine() {
    if (this.#box.crashed && !this.#closed) {
      this.#box.wake();
      throw new MemdexError(
        'INTERNAL',
        `memdex engine of index '${this.#name}' is restarting after a crash; await index.ready() (async methods wait for it) and call again`,
      );
    }
    this.#checkOpen();
    return this.#box.engine;
  }

  #checkOpen() {
    if (this.#closed || (!this.#box.engine && !this.#box.crashed)) {
      throw new MemdexError('CLOSED', `index '${this.#name}' is closed; open it again with Memdex.open()`);
    }
  }

  /** The index name (its key prefix in storage). */
  get name() {
    return this.#name;
  }

  /** Live documents. */
  get size() {
    const engine = this.#engine;
    return call(() => engine.size);
  }

  /** Generation of the last commit this index wrote or loaded (0 = never). */
  get generation() {
    const engine = this.#engine;
    return call(() => engine.generation);
  }

  /** Whether there are writes not yet committed. */
  get dirty() {
    return this.#writes + this.#inFlight > 0;
  }

  /** Whether `close()` has been called. */
  get closed() {
    return this.#closed;
  }

  #wrote(n = 1) {
    if (this.#writes + this.#inFlight === 0) this.#firstPendingAt = Date.now();
    this.#writes += n;
    const auto = this.#auto;
    if (!auto || this.#closing) return;
    if (this.#writes >= auto.maxWrites) {
      this.#schedule(0);
    } else {
      const deadline = this.#firstPendingAt + auto.maxDelayMs - Date.now();
      this.#schedule(Math.max(0, Math.min(auto.delayMs, deadline)));
    }
  }

  /** Commits pending writes when the page is hidden (called by the page watcher). */
  flushOnHide() {
    if (this.#closed || this.#closing || this.#writes === 0) return;
    this.#autoCommit();
  }

  // Unlike commit(), a failed auto-commit keeps the writes for the next
  // attempt or close(): no call of the caller's answered an error.
  #autoCommit() {
    this.#enqueue(() => this.#commitNow()).catch((err) => this.#onError(err));
  }

  #schedule(ms) {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = null;
      if (this.#closed || this.#writes === 0) return;
      this.#autoCommit();
    }, ms);
  }

  /** Adds a document, replacing any document with the same `id`. */
  add(doc) {
    const engine = this.#engine;
    const json = documentJson(doc);
    call(() => engine.addJson(json));
    this.#wrote();
  }

  /**
   * Adds documents synchronously; returns how many were added. Same
   * batching and error as `addMany`, without yielding: prefer `addMany` for
   * large inputs on a page.
   */
  addAll(docs) {
    if (docs === null || typeof docs !== 'object' || !(Symbol.iterator in docs)) {
      throw usage('addAll(docs): docs must be an iterable of documents');
    }
    const engine = this.#engine; // throws CLOSED before consuming the iterable
    const batch = new JsonLinesBatch('addAll', () => engine, (n) => this.#wrote(n));
    for (const doc of docs) batch.push(doc);
    batch.flush();
    return batch.added;
  }

  /**
   * Adds documents from an iterable or async iterable in batches, yielding
   * to the event loop between batches; resolves to the number added.
   */
  async addMany(docs, options = {}) {
    if (docs === null || typeof docs !== 'object' || !(Symbol.iterator in docs || Symbol.asyncIterator in docs)) {
      throw usage('addMany(docs): docs must be an iterable or async iterable of documents');
    }
    const { onProgress, batchSize = 1000, total } = options ?? {};
    if (!(Number.isInteger(batchSize) && batchSize >= 1)) throw usage('addMany: `batchSize` must be an integer >= 1');
    if (onProgress !== undefined && typeof onProgress !== 'function') throw usage('addMany: `onProgress` must be a function');
    const known = total ?? (Array.isArray(docs) ? docs.length : undefined);
    // The engine is looked up per batch: close() or reload() may run
    // between batches.
    const batch = new JsonLinesBatch('addMany', () => this.#engine, (n) => this.#wrote(n), batchSize);
    await this.ready();
    this.#engine; // throws CLOSED before consuming the iterable
    for await (const doc of docs) {
      if (batch.push(doc)) {
        onProgress?.({ added: batch.added, total: known });
        await yieldToEventLoop();
      }
    }
    batch.flush();
    onProgress?.({ added: batch.added, total: known });
    return batch.added;
  }

  /** Removes a document by id; returns whether it existed. */
  remove(id) {
    const engine = this.#engine;
    checkId(id);
    const existed = call(() => engine.remove(id));
    if (existed) this.#wrote();
    return existed;
  }

  /** Removes every document matching `filter`; returns how many. */
  removeWhere(filter) {
    const engine = this.#engine;
    if (!isObject(filter) || Object.keys(filter).length === 0) {
      throw usage('removeWhere(filter): pass a non-empty filter such as { namespace: "agent-1" }');
    }
    checkJsonable(filter, 'removeWhere filter');
    const n = call(() => engine.removeWhere(filter));
    if (n > 0) this.#wrote(n);
    return n;
  }

  /** The stored document with this id, or `undefined`. */
  get(id) {
    const engine = this.#engine;
    checkId(id);
    return call(() => engine.get(id));
  }

  /** Ranked search; see `SearchOptions` in index.d.ts. */
  search(query, options) {
    const engine = this.#engine;
    const opts = checkSearch(query, options);
    // A query vector goes over as a Float32Array (copied as floats), not
    // as JSON text; the engine validates it like every other option.
    const vector = opts?.vector;
    if (vector !== undefined && vector !== null && (Array.isArray(vector) || ArrayBuffer.isView(vector))) {
      const { vector: _, ...rest } = opts;
      const floats = vector instanceof Float32Array ? vector : Float32Array.from(/** @type {number[]} */ (vector));
      return timed(() => engine.search(query, rest, floats));
    }
    return timed(() => engine.search(query, opts));
  }

  /** Documents linked to `id` (no query); see `RelatedOptions` in index.d.ts. */
  related(id, options) {
    const engine = this.#engine;
    checkId(id);
    return call(() => engine.related(id, options)).hits;
  }

  /** Best hits as compact context within `budgetTokens`; see `PackOptions` (pack.js). */
  pack(query, options) {
    return pack(this, query, options, usage);
  }

  /** Term completions for `prefix`, most frequent first. */
  suggest(prefix, options = {}) {
    const engine = this.#engine;
    if (typeof prefix !== 'string') throw usage('suggest(prefix): prefix must be a string');
    const limit = typeof options === 'number' ? options : (options?.limit ?? 10);
    if (!(Number.isInteger(limit) && limit >= 0)) throw usage('suggest: `limit` must be a non-negative integer');
    return call(() => engine.suggest(prefix, limit));
  }

  /** Live documents matching `filter` (all when omitted). */
  count(filter) {
    const engine = this.#engine;
    return call(() => engine.count(checkFilter(filter, 'count')));
  }

  /** Merges all segments into one (smaller, faster; the next commit rewrites the index). */
  compact() {
    const engine = this.#engine;
    call(() => engine.compact());
  }

  /** Index statistics. */
  stats() {
    const engine = this.#engine;
    return { ...call(() => engine.stats()), generation: call(() => engine.generation), pendingWrites: this.#writes + this.#inFlight };
  }

  /** The whole index (schema included) as bytes for `Memdex.import`. */
  export() {
    const engine = this.#engine;
    return call(() => engine.exportSnapshot());
  }

  /**
   * Runs `fn` after everything queued before it (commits, reloads).
   * @template T
   * @param {() => T | Promise<T>} fn
   * @returns {Promise<T>}
   */
  #enqueue(fn) {
    const step = async () => {
      // After an engine crash (or a failed write whose drop failed), first
      // back to the last commit in storage.
      if ((this.#box.crashed || this.#stale) && !this.#closed) await this.#reloadNow();
      return fn();
    };
    const run = this.#queue.then(step, step);
    this.#queue = run.catch(() => {});
    return run;
  }

  /**
   * Resolves once this index answers again after an engine crash (the wasm
   * instantiated anew, the index reloaded from storage); at once otherwise.
   * Async methods wait for it themselves.
   * @returns {Promise<void>}
   */
  ready() {
    if (!this.#box.crashed && !this.#stale) return Promise.resolve();
    return this.#enqueue(() => undefined);
  }

  /**
   * Writes all changes to storage (blobs first, manifest last), serialized
   * with other commits of this index in this process (and, in browsers,
   * across tabs via Web Locks). Rejects with `CONFLICT` if another writer
   * committed first. A commit that rejects drops every uncommitted write
   * (the index reloads its last commit): nothing it reported unsaved is
   * saved later. Re-apply the writes and commit again.
   * @returns {Promise<import('./index.js').CommitInfo>}
   */
  commit() {
    this.#checkOpen();
    if (this.#timer !== null) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    return this.#enqueue(() =>
      this.#commitNow().catch(async (err) => {
        await this.#discard();
        throw err;
      }),
    );
  }

  // A write that answered an error leaves nothing behind: back to the last
  // commit. If even the reload fails, the next queued operation reloads.
  async #discard() {
    try {
      await this.#reloadNow();
    } catch {
      this.#stale = true;
    }
  }

  // The writer lock of this index: the adapter's own (fs: across
  // processes) or withIndexLock (Web Locks in browsers, else in-process).
  #lock(fn) {
    const adapter = this.#adapter;
    const locked = typeof adapter.lock === 'function' ? adapter.lock(this.#name, fn) : this.#platform.withIndexLock(this.#name, fn);
    return locked.catch((err) => {
      // The adapter's own lock errors (LOCKED) as MemdexErrors; fn's pass as they are.
      throw err?.name === 'MemdexStorageError' ? toMemdexError(err) : err;
    });
  }

  async #commitNow() {
    if (!this.#box.engine) throw new MemdexError('CLOSED', `index '${this.#name}' is closed`);
    return this.#lock(() => this.#commitLocked());
  }

  // Commits with the writer lock held.
  async #commitLocked() {
    const { engine, epoch } = this.#box;
    if (!engine) throw new MemdexError('CLOSED', `index '${this.#name}' is closed`);
    const handle = call(() => engine.prepareCommit(this.#name));
    this.#inFlight = this.#writes;
    this.#writes = 0;
    try {
      const info = await engineAsync(() => handle.execute(this.#adapter));
      // The engine crashed meanwhile: the commit is durable, and the
      // restart reloads it.
      if (epoch !== realm.epoch) return info;
      call(() => engine.finishCommit(handle));
      if (this.#writes > 0) this.#firstPendingAt = Date.now();
      return info;
    } catch (err) {
      this.#writes += this.#inFlight; // still uncommitted; a retry writes them
      throw toMemdexError(err);
    } finally {
      this.#inFlight = 0;
      dispose(handle, epoch);
    }
  }

  /**
   * Makes `fn`'s writes on the latest committed state and commits them,
   * holding the writer lock, so writers of other tabs or processes cannot
   * interleave: the documented CONFLICT recovery (reload, re-apply,
   * commit) done for you. `fn(index)` makes its writes (and may read);
   * before it runs, the index is reloaded if another writer committed. If
   * a writer outside the lock still commits first (`CONFLICT`), the index
   * reloads and `fn` runs again, up to `retries` times (default 5). If
   * `fn` throws or the commit fails, every uncommitted write is dropped
   * (the index reloads its last commit) and the error is rethrown: an
   * update that rejects leaves nothing behind. Writes made before `update`
   * are committed first. Resolves to what the last run of `fn` returned,
   * once its writes are durable. On memory storage it just runs `fn`.
   */
  update(fn, { retries = 5 } = {}) {
    this.#checkOpen();
    if (typeof fn !== 'function') throw usage('update(fn): fn must be a function that makes the writes, like (index) => index.add(doc)');
    if (!(Number.isInteger(retries) && retries >= 0)) throw usage('update: `retries` must be an integer >= 0');
    if (!this.#persistent) return this.#enqueue(async () => fn(this));
    if (this.#timer !== null) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    return this.#enqueue(() =>
      this.#lock(async () => {
        if (this.#writes > 0) await this.#commitLocked();
        for (let attempt = 0; ; attempt++) {
          const current = await engineAsync(() => this.#engine.isCurrent(this.#adapter, this.#name));
          if (!current) await this.#reloadNow();
          const result = await fn(this);
          try {
            await this.#commitLocked();
            return result;
          } catch (err) {
            if (err.code !== 'CONFLICT' || attempt >= retries) throw err;
          }
        }
      }).catch(async (err) => {
        await this.#discard(); // what fn wrote, or a commit that failed (LOCKED, STORAGE, CONFLICT)
        throw err;
      }),
    );
  }

  /**
   * Replaces the in-memory state with the last commit in storage (e.g.
   * after another tab or process committed). Uncommitted writes are dropped.
   * Resolves to whether anything was stored.
   */
  reload() {
    this.#checkOpen();
    return this.#enqueue(() => this.#reloadNow());
  }

  /**
   * Reloads only if another writer committed since this index loaded or
   * last committed (one read of the stored manifest), and only when this
   * index has no uncommitted writes (which a reload would drop). Resolves
   * to whether it reloaded. For long-lived readers beside other writers.
   */
  refresh() {
    this.#checkOpen();
    return this.#enqueue(async () => {
      const engine = this.#box.engine;
      if (!engine || !this.#persistent || this.#writes + this.#inFlight > 0) return false;
      const current = await engineAsync(() => engine.isCurrent(this.#adapter, this.#name));
      return current ? false : this.#reloadNow().then(() => true);
    });
  }

  async #reloadNow() {
    const box = this.#box;
    const { engine: fresh, epoch, stored } = await loadEngine(this.#platform, this.#adapter, this.#name, undefined, () =>
      // Nothing stored: the last committed state is an empty index.
      box.engine && box.epoch === realm.epoch ? box.engine.emptyLike() : new Engine(this.#config),
    );
    if (this.#closed) {
      dispose(fresh, epoch);
      throw new MemdexError('CLOSED', `index '${this.#name}' is closed`);
    }
    const old = box.engine;
    const oldEpoch = box.epoch;
    Object.assign(box, { engine: fresh, epoch, crashed: false });
    this.#writes = 0;
    this.#stale = false;
    dispose(old, oldEpoch);
    return stored;
  }

  /**
   * Commits every pending write (persistent storage), then frees the
   * engine; later calls throw `CLOSED`. Rejects, and leaves the index
   * open, if a write could not be committed (e.g. `CONFLICT`, a full
   * disk): nothing is dropped silently; fix the cause and call `close()`
   * again, or `free()` to drop the writes. Idempotent once it resolved.
   */
  close() {
    if (this.#closing) return this.#closing;
    if (this.#timer !== null) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    const settle = async () => {
      await this.#queue; // an auto-commit in flight, successful or not
      if (this.#persistent && this.#box.engine && this.#writes + this.#inFlight > 0) {
        await this.#enqueue(() => this.#commitNow());
      }
      this.#release();
    };
    this.#closing = settle().catch((err) => {
      this.#closing = null; // still open: close() may be called again
      throw toMemdexError(err);
    });
    return this.#closing;
  }

  #release() {
    this.#closed = true;
    this.#unwatchPage();
    finalizer?.unregister(this.#box);
    realm.boxes.delete(this.#box);
    const { engine, epoch } = this.#box;
    this.#box.engine = undefined;
    dispose(engine, epoch);
  }

  /** Same as `close()` without waiting; for `using` declarations prefer `await using`. */
  [Symbol.asyncDispose]() {
    return this.close();
  }

  /**
   * Frees the engine at once, dropping writes not yet committed (a commit
   * in flight still completes). `close()` is the call that keeps them.
   */
  free() {
    if (this.#closed) return;
    if (this.#timer !== null) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    this.#auto = null;
    const { engine, epoch } = this.#box;
    this.#closed = true;
    this.#unwatchPage();
    finalizer?.unregister(this.#box);
    realm.boxes.delete(this.#box);
    this.#box.engine = undefined;
    // A commit holding the engine finishes first; then it is freed.
    this.#queue.then(() => dispose(engine, epoch));
  }
}


if (Symbol.asyncDispose === undefined) delete MemdexBase.prototype[Symbol.asyncDispose];
