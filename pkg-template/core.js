// Environment-independent part of the memdex JS API: `MemdexBase`, a thin
// layer over the wasm `Engine`: how an index is opened (open, create,
// import, recover), its writes and its reads. The lifecycle (commits,
// auto-commit, reload, close) is lifecycle.js's; the wasm instance and error
// mapping realm.js's; documents and option checks documents.js's. Each entry
// point (index.js for browsers, node.js, workerd.js) exports a subclass
// whose `static platform` says how it loads the .wasm, which storage
// adapters it offers and how it locks (see `Platform` in realm.js).
import { Engine, recoverIndex } from './memdex.js';
import { pack } from './pack.js';
import { MemdexError, describe, isObject, usage } from './memdex-error.js';
import { call, engineAsync, inItsLanguage, loadEngine, loadFor, platformOf, timed, toMemdexError, withCache } from './realm.js';
import {
  FloatMembers, JsonLinesBatch, checkChanges, checkFilter, checkId, checkJsonable, checkSearch, documentJson, patched, vectorFields,
  runOperations, suggestLimit, wantsVectors, yieldToEventLoop,
} from './documents.js';
import { OPEN_OPTIONS, autoCommitSettings, checkName, engineConfig, refuseRemoved, resolveStorage } from './open-options.js';
import { ENGINE, IndexLifecycle, PENDING, TOKEN, WROTE } from './lifecycle.js';
import { Embedder, checkEmbedOption } from './embed.js';
import { importParts, isPartSource, snapshotStream } from './snapshot.js';
import { openLazy } from './lazy.js';
import {
  EMBEDDER, PUT, SEARCH, STORED, applyOperations, embedDocuments, packEmbedded, patchEmbedded, prepareOperations, searchSemantic, verifier,
} from './embed-ops.js';

export { MemdexError, toMemdexError };
export { rejectedDocument } from './documents.js';

/**
 * One write of `update(operations)`.
 * @typedef {{ op: 'add', doc: Doc } | { op: 'patch', id: string, changes: Record<string, unknown> } | { op: 'remove', id: string }
 *   | { op: 'removeWhere', filter: import('./index.js').Filter }} WriteOperation
 */

/** @type {Record<string, string[]>} the keys each operation takes */
const OPERATION_KEYS = { add: ['doc'], patch: ['id', 'changes'], remove: ['id'], removeWhere: ['filter'] };

/**
 * Checks one operation of `update(operations)` before anything runs.
 * @param {unknown} o
 * @param {number} i
 * @returns {WriteOperation}
 */
function checkOperation(o, i) {
  const at = `update(operations): operation ${i + 1}`;
  if (!isObject(o)) throw usage(`${at} must be an object like { op: 'add', doc }`);
  const keys = Object.hasOwn(OPERATION_KEYS, String(o.op)) ? OPERATION_KEYS[String(o.op)] : undefined;
  if (keys === undefined) throw usage(`${at}: \`op\` must be 'add', 'patch', 'remove' or 'removeWhere', got ${describe(o.op)}`);
  const takes = keys.map((k) => `\`${k}\``).join(' and ');
  for (const key of Object.keys(o)) {
    if (key !== 'op' && !keys.includes(key)) throw usage(`${at}: unknown key \`${key}\`; { op: '${o.op}' } takes ${takes}`);
  }
  for (const key of keys) if (o[key] === undefined) throw usage(`${at}: { op: '${o.op}' } needs ${takes}`);
  return /** @type {WriteOperation} */ (o);
}

/**
 * The `onError` callback of open options (index.d.ts's MemdexError is the
 * declared face of memdex-error.js's).
 * @param {OpenInput} options
 * @returns {import('./lifecycle.js').IndexInit['onError']}
 */
const onErrorOf = ({ onError }) => /** @type {import('./lifecycle.js').IndexInit['onError']} */ (onError);

/** @typedef {import('./realm.js').Platform} Platform */
/** @typedef {import('./index.js').MemdexDocument} Doc */
/** @typedef {import('./open-options.js').OpenInput} OpenInput */

/**
 * The environment-independent Memdex; entry points export a subclass
 * that sets `static platform`.
 */
export class MemdexBase extends IndexLifecycle {
  /** @type {Platform | undefined} set by each entry point's subclass */
  static platform = undefined;

  /**
   * Opens the index stored under `name` in `storage` (loading its last
   * commit), or creates an empty one.
   * @param {OpenInput} [options]
   * @returns {Promise<MemdexBase>}
   */
  static async open(options = {}) {
    if (!isObject(options)) throw usage('Memdex.open(options): options must be an object');
    refuseRemoved(options);
    for (const key of Object.keys(options)) {
      if (!OPEN_OPTIONS.has(key)) throw usage(`unknown option \`${key}\`; expected one of ${[...OPEN_OPTIONS].join(', ')}`);
    }
    const name = checkName(options.name ?? 'memdex');
    const lazy = await openLazy(platformOf(this), options, name); // null: opened whole below
    if (lazy) return /** @type {any} */ (lazy);
    const config = engineConfig(options);
    const platform = platformOf(this);
    const { adapter, persistent } = resolveStorage(platform, options);
    const autoCommit = autoCommitSettings(options.autoCommit, persistent);
    const embed = checkEmbedOption(options.embed);
    await loadFor(platform, options.wasm, config);
    const { cacheBytes } = options;
    const load = () => loadEngine(platform, adapter, name, config, () => new Engine(config), cacheBytes);
    const { engine } = await inItsLanguage(platform, options.wasm, name, load);
    return new this(TOKEN, engine, { platform, adapter, name, persistent, autoCommit, onError: onErrorOf(options), config, cacheBytes }).#withEmbed(embed);
  }

  /** This index with its embedder (`embed` of open), or freed (USAGE) if the field is no vector field. @param {ReturnType<typeof checkEmbedOption>} embed */
  #withEmbed(embed) {
    if (embed === undefined) return this;
    try {
      this[EMBEDDER] = new Embedder(embed, vectorFields(this[ENGINE]));
    } catch (err) {
      this.free();
      throw err;
    }
    return this;
  }

  /** @type {Embedder | undefined} */
  [EMBEDDER] = undefined;

  /**
   * Rebuilds the lost manifest of the index `name` in `storage` from the
   * blobs still there (what `open` calls a lost manifest, `CORRUPT`).
   * Pass the `schema` (and analyzer options) the index was created with.
   * Resolves to `{ segments, documents, skipped }`; then `open` it.
   * @param {OpenInput} [options]
   * @returns {Promise<import('./index.js').RecoveryReport>}
   */
  static async recover(options = {}) {
    if (!isObject(options)) throw usage('Memdex.recover(options): options must be an object');
    const name = checkName(options.name ?? 'memdex');
    const config = engineConfig(options);
    const platform = platformOf(this);
    const { adapter } = resolveStorage(platform, options);
    await loadFor(platform, options.wasm, config);
    return engineAsync(() => recoverIndex(adapter, name, config));
  }

  /**
   * Browsers: set by the browser entry (index.js); elsewhere a `USAGE` error.
   * @param {import('./index.js').WorkerOpenOptions} [_options]
   * @returns {Promise<import('./index.js').RemoteMemdex>}
   */
  static async openInWorker(_options) {
    throw usage('openInWorker() needs a browser (Web Workers)');
  }

  /** An in-memory index (no persistence): `open({ storage: 'memory', ... })`. @param {OpenInput} [options] */
  static async create(options = {}) {
    return this.open({ ...options, storage: 'memory' });
  }

  /**
   * Rebuilds an index from `export()` bytes, or from `exportStream()`'s
   * parts (a stream or an iterable); `options` as for `open`.
   * @param {Uint8Array | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | Iterable<Uint8Array>} bytes
   * @param {OpenInput} [options]
   * @returns {Promise<MemdexBase>}
   */
  static async import(bytes, options = {}) {
    const parts = isPartSource(bytes);
    if (!parts && !(bytes instanceof Uint8Array)) throw usage('Memdex.import(bytes): bytes must be a Uint8Array from export() or the parts of exportStream()');
    if (!isObject(options)) throw usage('Memdex.import(bytes, options): options must be an object');
    refuseRemoved(options);
    for (const key of ['schema', 'defaultSchema', 'language', 'analyzer', 'k1', 'b']) {
      if (options[key] !== undefined) throw usage(`\`${key}\` cannot be changed by import(); the snapshot carries its schema`);
    }
    const name = checkName(options.name ?? 'memdex');
    const platform = platformOf(this);
    const { adapter, persistent } = resolveStorage(platform, options);
    const autoCommit = autoCommitSettings(options.autoCommit, persistent);
    const embed = checkEmbedOption(options.embed);
    await loadFor(platform, options.wasm, undefined);
    const cacheBytes = /** @type {number | undefined} */ (options.cacheBytes);
    // Parts are read once: only whole bytes run again in the all-languages wasm.
    const fromBytes = async () => call(() => Engine.importSnapshot(/** @type {Uint8Array} */ (bytes)));
    const imported = parts ? await importParts(bytes) : await inItsLanguage(platform, options.wasm, name, fromBytes);
    const engine = call(() => withCache(imported, cacheBytes));
    return new this(TOKEN, engine, { platform, adapter, name, persistent, autoCommit, onError: onErrorOf(options), cacheBytes }).#withEmbed(embed);
  }

  /**
   * Adds a document, replacing any document with the same `id`. With
   * `embed`: resolves once its vector was embedded (when it carries none)
   * and it was added.
   * @param {Doc} doc
   * @returns {void | Promise<void>}
   */
  add(doc) {
    const embedder = this[EMBEDDER];
    if (embedder === undefined) return this[PUT](doc);
    this[ENGINE]; // throws CLOSED before the embedder runs
    return embedder.fill([doc], verifier(this, embedder.field)).then(([ready]) => this[PUT](ready));
  }

  /** `embed` only: see EmbeddingMemdex in index.d.ts. @param {Doc[]} docs */
  embedDocuments(docs) {
    return embedDocuments(this, docs);
  }

  /** Adds one document now. @param {unknown} doc */
  [PUT](doc) {
    const engine = this[ENGINE];
    const floats = new FloatMembers();
    const json = floats.take(doc, 0, vectorFields(engine));
    call(() => (floats.keys.length === 0 ? engine.addJson(json) : floats.send(engine, json)));
    this[WROTE]();
  }

  /**
   * Adds documents synchronously; returns how many were added. Same
   * batching and error as `addMany`, without yielding: prefer `addMany` for
   * large inputs on a page.
   * @param {Iterable<Doc>} docs
   * @returns {number}
   */
  addAll(docs) {
    if (docs === null || typeof docs !== 'object' || !(Symbol.iterator in docs)) {
      throw usage('addAll(docs): docs must be an iterable of documents');
    }
    const engine = this[ENGINE]; // throws CLOSED before consuming the iterable
    const embedder = this[EMBEDDER];
    if (embedder !== undefined) {
      const all = [...docs];
      docs = all;
      const missing = all.filter((doc) => embedder.pending(doc) !== undefined).length;
      if (missing > 0) {
        throw usage(`addAll is synchronous and cannot wait for the embedder: ${missing} documents carry no \`${embedder.field}\` vector; use \`await addMany(docs)\`, which embeds them`);
      }
    }
    const batch = new JsonLinesBatch('addAll', () => engine, (n) => this[WROTE](n));
    for (const doc of docs) batch.push(doc);
    batch.flush();
    return batch.added;
  }

  /**
   * Adds documents from an iterable or async iterable in batches, yielding
   * to the event loop between batches; resolves to the number added.
   * @param {Iterable<Doc> | AsyncIterable<Doc>} docs
   * @param {import('./index.js').AddManyOptions} [options]
   * @returns {Promise<number>}
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
    const batch = new JsonLinesBatch('addMany', () => this[ENGINE], (n) => this[WROTE](n), batchSize);
    await this.ready();
    this[ENGINE]; // throws CLOSED before consuming the iterable
    const embedder = this[EMBEDDER];
    if (embedder !== undefined) {
      // Every embedding first: a failed one leaves nothing of this call written.
      const all = [];
      for await (const doc of docs) all.push(doc);
      docs = /** @type {Doc[]} */ (await embedder.fill(all, verifier(this, embedder.field)));
    }
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

  /**
   * Removes a document by id; returns whether it existed.
   * @param {string} id
   * @returns {boolean}
   */
  remove(id) {
    const engine = this[ENGINE];
    checkId(id);
    const existed = call(() => engine.remove(id));
    if (existed) this[WROTE]();
    return existed;
  }

  /**
   * Removes every document matching `filter`; returns how many.
   * @param {import('./index.js').Filter} filter
   * @returns {number}
   */
  removeWhere(filter) {
    const engine = this[ENGINE];
    if (!isObject(filter) || Object.keys(filter).length === 0) {
      throw usage('removeWhere(filter): pass a non-empty filter such as { namespace: "agent-1" }');
    }
    checkJsonable(filter, 'removeWhere filter');
    const n = call(() => engine.removeWhere(filter));
    if (n > 0) this[WROTE](n);
    return n;
  }

  /**
   * Changes the given fields of the document `id` and keeps every other
   * stored field, its vectors and its links: one upsert of the stored
   * document with `changes` applied (`null` removes a field). `NOT_FOUND`
   * when there is no such document. With `embed`: resolves once written,
   * the text embedded again when the patch changed it.
   * @param {string} id
   * @param {Record<string, unknown>} changes
   * @returns {void | Promise<void>}
   */
  patch(id, changes) {
    const engine = this[ENGINE];
    checkId(id);
    checkChanges(id, changes);
    const embedder = this[EMBEDDER];
    if (embedder !== undefined) return patchEmbedded(this, embedder, id, changes);
    const json = documentJson(patched(this[STORED](id, 'patch'), changes));
    call(() => engine.addJson(json));
    this[WROTE]();
  }

  /**
   * The stored document `id` with its vectors; NOT_FOUND when missing.
   * @param {string} id
   * @param {string} verb what needs it (named in the error)
   * @returns {Record<string, unknown>}
   */
  [STORED](id, verb) {
    const engine = this[ENGINE];
    const stored = call(() => engine.get(id, true));
    if (stored === undefined) {
      const err = new MemdexError('NOT_FOUND', `no document with id ${describe(id)} to ${verb}; add it first (${verb} changes an existing document)`);
      err.data = { id };
      throw err;
    }
    return stored;
  }

  /**
   * The stored document with this id, or `undefined`; `{ vectors: true }`
   * adds its vectors (number arrays, unit length on cosine fields).
   * @param {string} id
   * @param {import('./index.js').GetOptions} [options]
   * @returns {Doc | undefined}
   */
  get(id, options) {
    const engine = this[ENGINE];
    checkId(id);
    const vectors = wantsVectors(options);
    return call(() => engine.get(id, vectors));
  }

  /**
   * Ranked search; see `SearchOptions` in index.d.ts. With `embed`, or
   * with `semantic`, see searchSemantic (embed-ops.js).
   * @param {string} query
   * @param {import('./index.js').SearchOptions} [options]
   * @returns {import('./index.js').SearchResults | Promise<import('./index.js').SearchResults>}
   */
  search(query, options) {
    if (this[EMBEDDER] !== undefined || (isObject(options) && options.semantic !== undefined)) return searchSemantic(this, query, options);
    return this[SEARCH](query, options);
  }

  /**
   * The search itself.
   * @param {string} query
   * @param {import('./index.js').SearchOptions} [options]
   * @returns {import('./index.js').SearchResults}
   */
  [SEARCH](query, options) {
    const engine = this[ENGINE];
    const opts = checkSearch(query, options);
    // A query vector goes over as a Float32Array (copied as floats), not
    // as JSON text; the engine validates it like every other option.
    const vector = opts?.vector;
    if (opts && vector !== undefined && vector !== null && (Array.isArray(vector) || ArrayBuffer.isView(vector))) {
      const { vector: _, ...rest } = opts;
      const floats = vector instanceof Float32Array ? vector : Float32Array.from(/** @type {number[]} */ (vector));
      return timed(() => engine.search(query, rest, floats));
    }
    return timed(() => engine.search(query, opts));
  }

  /**
   * Documents linked to `id` (no query); see `RelatedOptions` in index.d.ts.
   * @param {string} id
   * @param {import('./index.js').RelatedOptions} [options]
   * @returns {import('./index.js').Hit[]}
   */
  related(id, options) {
    const engine = this[ENGINE];
    checkId(id);
    return call(() => engine.related(id, options)).hits;
  }

  /**
   * Best hits as compact context within `budgetTokens`; see `PackOptions` (pack.js).
   * @param {string} query
   * @param {import('./index.js').PackOptions} options
   * @returns {import('./index.js').PackResult | Promise<import('./index.js').PackResult>}
   */
  pack(query, options) {
    if (this[EMBEDDER] !== undefined) return packEmbedded(this, query, options, (db) => pack(db, query, options, usage));
    return pack(this, query, options, usage);
  }

  /**
   * Term completions for `prefix`, most frequent first.
   * @param {string} prefix
   * @param {import('./index.js').SuggestOptions | number} [options] a number is the limit
   * @returns {import('./index.js').Suggestion[]}
   */
  suggest(prefix, options = {}) {
    const engine = this[ENGINE];
    const limit = suggestLimit(prefix, options);
    return call(() => engine.suggest(prefix, limit));
  }

  /**
   * Live documents matching `filter` (all when omitted).
   * @param {import('./index.js').Filter} [filter]
   * @returns {number}
   */
  count(filter) {
    const engine = this[ENGINE];
    return call(() => engine.count(checkFilter(filter, 'count')));
  }

  /** Merges all segments into one (smaller, faster; the next commit rewrites the index). */
  compact() {
    const engine = this[ENGINE];
    call(() => engine.compact());
  }

  /**
   * Index statistics.
   * @returns {import('./index.js').Stats}
   */
  stats() {
    const engine = this[ENGINE];
    return { ...call(() => engine.stats()), generation: call(() => engine.generation), pendingWrites: this[PENDING] };
  }

  /**
   * @overload
   * @param {WriteOperation[]} fn
   * @param {{ retries?: number }} [options]
   * @returns {Promise<{ added: number, removed: number }>}
   */
  /**
   * @template R
   * @overload
   * @param {(index: this) => R | Promise<R>} fn
   * @param {{ retries?: number }} [options]
   * @returns {Promise<R>}
   */
  /**
   * `update(fn)` (see lifecycle.js), or `update(operations)`: the writes
   * as plain data (`{ op: 'add', doc }`, `{ op: 'patch', id, changes }`,
   * `{ op: 'remove', id }`, `{ op: 'removeWhere', filter }`), applied in order and committed as
   * one update; resolves to `{ added, removed }`. The list form is what
   * `openInWorker` can send to its worker.
   * @template R
   * @param {((index: this) => R | Promise<R>) | WriteOperation[]} fn
   * @param {{ retries?: number }} [options]
   * @returns {Promise<R | { added: number, removed: number }>}
   */
  update(fn, options) {
    if (!Array.isArray(fn)) return super.update(fn, options);
    const ops = fn.map(checkOperation);
    const embedder = this[EMBEDDER];
    if (embedder !== undefined) {
      // Embedded before the update takes the writer lock.
      return prepareOperations(this, embedder, ops).then((p) => super.update((index) => applyOperations(index, embedder, p.ops, p.known), options));
    }
    return super.update((index) => runOperations(index, ops, { add: (doc) => index.add(doc), patch: (id, changes) => index.patch(id, changes) }), options);
  }

  /**
   * The whole index (schema included) as bytes for `Memdex.import`.
   * @returns {Uint8Array}
   */
  export() {
    const engine = this[ENGINE];
    return call(() => engine.exportSnapshot());
  }

  /**
   * `export()`'s bytes as a stream of parts, for indexes too large to hold
   * twice: write them out as they come; `Memdex.import` takes the stream.
   * @returns {ReadableStream<Uint8Array>}
   */
  exportStream() {
    return snapshotStream(this[ENGINE]);
  }
}
