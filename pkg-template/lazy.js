// The lazily opened index: `Memdex.open({ lazy: true })`. It reads the
// manifest and the segment heads at open and fetches the term shards, doc
// store pages and surface words a search needs from storage while it
// searches, so every search is async. It only searches: writes go through
// an index opened without `lazy`.
import { openLazy as openLazyEngine } from './memdex.js';
import { MemdexError, usage } from './memdex-error.js';
import { checkId, suggestLimit, wantsVectors } from './documents.js';
import { NOT_LAZY, resolveStorage } from './open-options.js';
import { dispose, engineAsync, ensureLoaded, inItsLanguage, realm } from './realm.js';

/**
 * Committed bytes at or below which `lazy: 'auto'` loads an index whole:
 * 64 MiB is about 450k `packages` documents, whose whole open takes about
 * 1.2 s in Node (between BENCHMARKS "Lazy open"'s 100k and 1M rows).
 */
export const LAZY_ABOVE_BYTES = 64 * 2 ** 20;

/**
 * `Memdex.open({ lazy })`: with `lazy: true` the committed index `name`,
 * read from its segment heads and searched through storage; with
 * `lazy: 'auto'` the same when it is larger than `lazyAboveBytes`, else
 * `null` (the caller opens it whole), as without `lazy`.
 * @param {import('./realm.js').Platform} platform
 * @param {import('./open-options.js').OpenInput} options
 * @param {string} name
 * @returns {Promise<LazyMemdex | null>}
 */
export async function openLazy(platform, options, name) {
  const { lazy, lazyAboveBytes } = options;
  if (lazy !== undefined && lazy !== true && lazy !== false && lazy !== 'auto') throw usage("`lazy` must be true, false or 'auto'");
  if (lazyAboveBytes !== undefined && lazy !== 'auto') throw usage("`lazyAboveBytes` applies to `lazy: 'auto'` only");
  if (!lazy) return null;
  // With 'auto', the options of writes apply when it opens whole (a lazy index never writes).
  const refused = lazy === 'auto' ? NOT_LAZY.filter((key) => key !== 'autoCommit' && key !== 'onError') : NOT_LAZY;
  const extra = refused.filter((key) => /** @type {Record<string, unknown>} */ (options)[key] !== undefined);
  if (extra.length) throw usage(`a lazy index reads a committed index as it is and never writes: ${extra.map((k) => `\`${k}\``).join(', ')} do not apply`);
  const { adapter } = resolveStorage(platform, options);
  await ensureLoaded(platform, options.wasm);
  const wholeBelow = lazy === 'auto' ? (lazyAboveBytes ?? LAZY_ABOVE_BYTES) : undefined;
  return LazyMemdex.open(platform, adapter, name, options.cacheBytes, wholeBelow);
}

/** @typedef {import('./memdex.js').LazyEngine} LazyEngine */

export class LazyMemdex {
  /** @type {LazyEngine | undefined} */ #engine;
  #epoch = -1;
  #queue = Promise.resolve();
  #closed = false;
  #reopen;

  /**
   * @param {() => Promise<LazyEngine | undefined>} reopen opens the engine (again after an engine crash)
   */
  constructor(reopen) {
    this.#reopen = reopen;
  }

  /**
   * Opens `name` lazily; `NOT_FOUND` when nothing is stored there.
   * @param {import('./realm.js').Platform} platform
   * @param {import('./storage.js').StorageAdapter} adapter
   * @param {string} name
   * @param {unknown} cacheBytes
   * @param {unknown} [wholeBelow] committed bytes at or below which (or nothing stored) this resolves to `null`: open whole
   * @returns {Promise<LazyMemdex | null>}
   */
  static async open(platform, adapter, name, cacheBytes, wholeBelow) {
    let below = wholeBelow;
    let whole = false;
    const index = new LazyMemdex(() => inItsLanguage(platform, undefined, name, async () => {
      await ensureLoaded(platform, undefined);
      const opened = await engineAsync(() => openLazyEngine(adapter, name, cacheBytes, below));
      // Nothing stored, or small: opened whole (`lazy: 'auto'`, the first open only).
      whole = below !== undefined && (opened === undefined || typeof opened === 'number');
      below = undefined; // a reopen after an engine crash stays lazy
      return typeof opened === 'number' ? undefined : opened;
    }));
    try {
      await index.#live();
    } catch (err) {
      if (whole) return null;
      throw err;
    }
    return index;
  }

  /** Always `true`: tells a lazily opened index from one opened whole (`lazy: 'auto'`). */
  get lazy() {
    return true;
  }

  /** Number of live documents. */
  get size() {
    return this.#engine?.size ?? 0;
  }

  /** Generation of the commit the index was opened at. */
  get generation() {
    return this.#engine?.generation ?? 0;
  }

  /** The engine of this realm's instance, opened again after a crash. */
  async #live() {
    if (this.#closed) throw new MemdexError('USAGE', 'this lazy index was closed');
    if (this.#engine && this.#epoch === realm.epoch && !realm.dead) return this.#engine;
    const epoch = realm.epoch;
    const engine = await this.#reopen();
    if (!engine) throw new MemdexError('NOT_FOUND', 'nothing is stored under this name: a lazy index opens a committed index');
    this.#engine = engine;
    this.#epoch = epoch;
    return engine;
  }

  /**
   * Searches (one at a time: later calls wait for earlier ones).
   * @param {string} query
   * @param {object} [options] the `search` options of an index opened in full
   * @returns {Promise<import('./index.js').SearchResults>}
   */
  search(query, options) {
    return this.#serial(async (engine) => {
      const started = performance.now();
      const results = await engine.search(query, options);
      results.tookMs = performance.now() - started;
      return results;
    });
  }

  /**
   * Runs `call` on the engine after the calls before it (one at a time).
   * @template T
   * @param {(engine: LazyEngine) => Promise<T>} call
   * @returns {Promise<T>}
   */
  #serial(call) {
    const run = this.#queue.then(async () => {
      const engine = await this.#live();
      return engineAsync(() => call(engine));
    });
    this.#queue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /**
   * The stored document `id`, or `undefined` (found through a hash index
   * of the ids, built by the first read by id; then its page is fetched).
   * @param {string} id
   * @param {{ vectors?: boolean }} [options]
   * @returns {Promise<Record<string, unknown> | undefined>}
   */
  async get(id, options) {
    checkId(id);
    const vectors = wantsVectors(options);
    return this.#serial((engine) => engine.get(id, vectors));
  }

  /**
   * Completions of `prefix`'s last word, as {@link Memdex.suggest} gives them.
   * @param {string} prefix
   * @param {number | { limit?: number }} [options]
   * @returns {Promise<{ suggestion: string, score: number }[]>}
   */
  async suggest(prefix, options) {
    const limit = suggestLimit(prefix, options);
    return this.#serial((engine) => engine.suggest(prefix, limit));
  }

  /**
   * Documents and segments, and what the lazy cache holds and fetched.
   * @returns {Promise<import('./index.js').LazyIndexStats>}
   */
  async stats() {
    await this.#queue;
    const engine = await this.#live();
    return engineAsync(async () => engine.stats());
  }

  /** {@link LazyMemdex.close} (an index opened whole frees by `free` too). */
  free() {
    this.close();
  }

  /** Frees the engine; later calls are `USAGE` errors. */
  close() {
    this.#closed = true;
    dispose(this.#engine, this.#epoch);
    this.#engine = undefined;
  }
}
