// The lazily opened index: `Memdex.open({ lazy: true })`. It reads the
// manifest and the segment heads at open and fetches the term shards, doc
// store pages and surface words a search needs from storage while it
// searches, so every search is async. It only searches: writes go through
// an index opened without `lazy`.
import { openLazy as openLazyEngine } from './memdex.js';
import { MemdexError, usage } from './memdex-error.js';
import { NOT_LAZY, resolveStorage } from './open-options.js';
import { dispose, engineAsync, ensureLoaded, realm } from './realm.js';

/**
 * `Memdex.open({ lazy: true })`: the committed index `name`, read from its
 * segment heads, searched through storage.
 * @param {import('./realm.js').Platform} platform
 * @param {import('./open-options.js').OpenInput} options
 * @param {string} name
 */
export async function openLazy(platform, options, name) {
  const extra = NOT_LAZY.filter((key) => /** @type {Record<string, unknown>} */ (options)[key] !== undefined);
  if (extra.length) throw usage(`a lazy index reads a committed index as it is and never writes: ${extra.map((k) => `\`${k}\``).join(', ')} do not apply`);
  const { adapter } = resolveStorage(platform, options);
  await ensureLoaded(platform, options.wasm);
  return LazyMemdex.open(platform, adapter, name, options.cacheBytes);
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
   */
  static async open(platform, adapter, name, cacheBytes) {
    const index = new LazyMemdex(async () => {
      await ensureLoaded(platform, undefined);
      return engineAsync(() => openLazyEngine(adapter, name, cacheBytes));
    });
    await index.#live();
    return index;
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
    const run = this.#queue.then(async () => {
      const engine = await this.#live();
      const started = performance.now();
      const results = await engineAsync(() => engine.search(query, options));
      results.tookMs = performance.now() - started;
      return results;
    });
    this.#queue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
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

  /** Frees the engine; later calls are `USAGE` errors. */
  close() {
    this.#closed = true;
    dispose(this.#engine, this.#epoch);
    this.#engine = undefined;
  }
}
