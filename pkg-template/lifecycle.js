// The lifecycle of an open index: its engine box (shared with the realm
// and the finalizer), the queue that orders commits and reloads, the writer
// lock, commits and auto-commits, update/reload/refresh, close and free.
// `MemdexBase` (core.js) adds the reads and writes on top, reaching the
// engine through the symbol-keyed members below (never public API).
import { Engine } from './memdex.js';
import { MemdexError, usage } from './memdex-error.js';
import { call, dispose, engineAsync, finalizer, loadEngine, realm, toMemdexError } from './realm.js';
import { FLUSH_ON_HIDE, watchPage } from './open-options.js';
import { REBUILD_FROM, migrate } from './migrate.js';

/** Only the package's own static constructors make an index. */
export const TOKEN = Symbol('memdex');
/** The live engine (throws CLOSED, or INTERNAL while restarting). */
export const ENGINE = Symbol('engine');
/** Counts `n` writes and schedules an auto-commit. */
export const WROTE = Symbol('wrote');
/** Writes not yet committed (pending and in the commit being written). */
export const PENDING = Symbol('pending');

/**
 * What an index is opened with (see `MemdexBase.open` in core.js).
 * @typedef {object} IndexInit
 * @property {import('./realm.js').Platform} platform
 * @property {import('./storage.js').StorageAdapter} adapter
 * @property {string} name
 * @property {boolean} persistent
 * @property {import('./open-options.js').AutoCommit | null} autoCommit
 * @property {((error: MemdexError) => void) | undefined} onError
 * @property {object | undefined} [config] the engine config: what a reload asks of the stored schema (an upgrade), and an empty index's; undefined: the stored one
 * @property {unknown} [cacheBytes] the `cacheBytes` open option (the engine checks it), kept for reloads
 */

/**
 * An open index's state and lifecycle; core.js's `MemdexBase` extends it
 * with reads and writes.
 */
export class IndexLifecycle {
  /** @type {import('./realm.js').EngineBox} shared with the finalizer and the realm */
  #box;
  #platform;
  #config;
  #cacheBytes;
  #stale = false; // a failed write could not be dropped yet: reload before anything else
  #adapter;
  #name;
  #persistent;
  /** @type {import('./open-options.js').AutoCommit | null} */
  #auto;
  #onError;
  /** @type {ReturnType<typeof setTimeout> | null} */
  #timer = null;
  #firstPendingAt = 0; // when the oldest uncommitted write was made
  #unwatchPage = () => {};
  #writes = 0; // writes since the last prepared commit
  #inFlight = 0; // writes in the commit being written
  /** @type {Promise<unknown>} settles when the last queued operation has */
  #queue = Promise.resolve();
  #closed = false;
  /** @type {Promise<void> | null} */
  #closing = null;

  /**
   * Use `await Memdex.open(options)`; the constructor is private.
   * @param {symbol} key
   * @param {Engine} engine
   * @param {IndexInit} init
   */
  constructor(key, engine, init) {
    if (key !== TOKEN) throw usage('use `await Memdex.open(options)` to make an index');
    const { platform, adapter, name, persistent, autoCommit, onError, config, cacheBytes } = init;
    const ref = typeof WeakRef === 'function' ? new WeakRef(this) : null;
    // After a crash every open index restarts at once (wake), held weakly.
    this.#box = { engine, epoch: realm.epoch, crashed: false, name, wake: () => void ref?.deref()?.ready().catch(() => {}) };
    realm.boxes.add(this.#box);
    this.#config = config;
    this.#cacheBytes = cacheBytes;
    this.#platform = platform;
    this.#adapter = adapter;
    this.#name = name;
    this.#persistent = persistent;
    this.#auto = autoCommit;
    this.#onError = onError ?? ((/** @type {MemdexError} */ err) => console.error('memdex: auto-commit failed:', err));
    finalizer?.register(this, this.#box, this.#box);
    if (persistent && autoCommit) this.#unwatchPage = watchPage(this);
  }

  /** @returns {Engine} */
  get [ENGINE]() {
    if (this.#box.crashed && !this.#closed) {
      this.#box.wake();
      throw new MemdexError(
        'INTERNAL',
        `memdex engine of index '${this.#name}' is restarting after a crash; await index.ready() (async methods wait for it) and call again`,
      );
    }
    this.#checkOpen();
    // Open and not crashed: the engine is there.
    return /** @type {Engine} */ (this.#box.engine);
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
    const engine = this[ENGINE];
    return call(() => engine.size);
  }

  /** Generation of the last commit this index wrote or loaded (0 = never). */
  get generation() {
    const engine = this[ENGINE];
    return call(() => engine.generation);
  }

  get [PENDING]() {
    return this.#writes + this.#inFlight;
  }

  /** Whether there are writes not yet committed. */
  get dirty() {
    return this.#writes + this.#inFlight > 0;
  }

  /** Whether `close()` has been called. */
  get closed() {
    return this.#closed;
  }

  /** @param {number} [n] */
  [WROTE](n = 1) {
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
  [FLUSH_ON_HIDE]() {
    if (this.#closed || this.#closing || this.#writes === 0) return;
    this.#autoCommit();
  }

  // Unlike commit(), a failed auto-commit keeps the writes for the next
  // attempt or close(): no call of the caller's answered an error.
  #autoCommit() {
    this.#enqueue(() => this.#commitNow()).catch((/** @type {unknown} */ err) => this.#onError(/** @type {MemdexError} */ (toMemdexError(err))));
  }

  /** @param {number} ms */
  #schedule(ms) {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = null;
      if (this.#closed || this.#writes === 0) return;
      this.#autoCommit();
    }, ms);
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

  /**
   * The writer lock of this index: the adapter's own (fs: across
   * processes) or withIndexLock (Web Locks in browsers, else in-process).
   * @template T
   * @param {() => Promise<T>} fn
   * @returns {Promise<T>}
   */
  #lock(fn) {
    const adapter = this.#adapter;
    const locked = typeof adapter.lock === 'function' ? adapter.lock(this.#name, fn) : this.#platform.withIndexLock(this.#name, fn);
    return locked.catch((/** @type {unknown} */ err) => {
      // The adapter's own lock errors (LOCKED) as MemdexErrors; fn's pass as they are.
      throw err instanceof Error && err.name === 'MemdexStorageError' ? toMemdexError(err) : err;
    });
  }

  /** @returns {Promise<import('./index.js').CommitInfo>} */
  async #commitNow() {
    if (!this.#box.engine) throw new MemdexError('CLOSED', `index '${this.#name}' is closed`);
    return this.#lock(() => this.#commitLocked());
  }

  /**
   * Commits with the writer lock held.
   * @returns {Promise<import('./index.js').CommitInfo>}
   */
  async #commitLocked() {
    const { engine, epoch } = this.#box;
    if (!engine) throw new MemdexError('CLOSED', `index '${this.#name}' is closed`);
    const handle = call(() => engine.prepareCommit(this.#name, this.#adapter));
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
   * @template R
   * @param {(index: this) => R | Promise<R>} fn
   * @param {{ retries?: number }} [options]
   * @returns {Promise<R>}
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
          const current = await engineAsync(() => this[ENGINE].isCurrent(this.#adapter, this.#name));
          if (!current) await this.#reloadNow();
          const result = await fn(this);
          try {
            await this.#commitLocked();
            return result;
          } catch (err) {
            if (!(err instanceof MemdexError) || err.code !== 'CONFLICT' || attempt >= retries) throw err;
          }
        }
      }).catch(async (/** @type {unknown} */ err) => {
        await this.#discard(); // what fn wrote, or a commit that failed (LOCKED, STORAGE, CONFLICT)
        throw err;
      }),
    );
  }

  /**
   * Rebuilds the documents of `source` (this index, or another one) under
   * `config` and stores them as this index's next commit, holding its
   * writer lock: one manifest swap replaces this index's last commit
   * (`Memdex.migrate`). Resolves to the new generation.
   * @param {IndexLifecycle} source
   * @param {object} config
   * @returns {Promise<number>}
   */
  [REBUILD_FROM](source, config) {
    this.#checkOpen();
    return this.#enqueue(() =>
      this.#lock(async () => {
        if (this.#writes + this.#inFlight > 0) throw usage('commit or drop the pending writes before a migration');
        if (!(await engineAsync(() => this[ENGINE].isCurrent(this.#adapter, this.#name)))) await this.#reloadNow();
        const base = this[ENGINE];
        const built = source[ENGINE];
        const epoch = realm.epoch;
        const fresh = call(() => built.rebuild(config));
        /** @type {import('./memdex.js').CommitHandle | undefined} */
        let handle;
        try {
          handle = call(() => (fresh.rebase(base), fresh.prepareCommit(this.#name, this.#adapter)));
          const info = await engineAsync(() => /** @type {any} */ (handle).execute(this.#adapter));
          if (epoch !== realm.epoch) return info.generation; // the restart reloads the commit
          call(() => fresh.finishCommit(/** @type {any} */ (handle)));
        } catch (err) {
          dispose(fresh, epoch);
          throw toMemdexError(err);
        } finally {
          dispose(handle, epoch);
        }
        const { engine: old, epoch: oldEpoch } = this.#box;
        Object.assign(this.#box, { engine: fresh, epoch, crashed: false });
        dispose(old, oldEpoch);
        this.#config = config;
        return call(() => fresh.generation);
      }),
    );
  }

  /**
   * Rebuilds an index from its stored documents under a new schema or
   * analyzer, atomically; see `Memdex.migrate` in index.d.ts.
   * @param {import('./index.js').MigrateOptions} options
   * @returns {Promise<import('./index.js').MigrateResult>}
   */
  static migrate(options) {
    return migrate(/** @type {any} */ (this), options);
  }

  /**
   * Replaces the in-memory state with the last commit in storage (e.g.
   * after another tab or process committed). Uncommitted writes are dropped.
   * Resolves to whether anything was stored.
   * @returns {Promise<boolean>}
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
   * @returns {Promise<boolean>}
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

  /** @returns {Promise<boolean>} whether a commit was stored */
  async #reloadNow() {
    const box = this.#box;
    // The open options' schema again: a reload keeps an upgrade not yet committed.
    // Nothing stored: the last committed state is an empty index.
    const empty = () => (box.engine && box.epoch === realm.epoch ? box.engine.emptyLike() : new Engine(this.#config));
    const { engine: fresh, epoch, stored } = await loadEngine(this.#platform, this.#adapter, this.#name, this.#config, empty, this.#cacheBytes);
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
   * @returns {Promise<void>}
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
    this.#closing = settle().catch((/** @type {unknown} */ err) => {
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

// Runtimes without Symbol.asyncDispose would get an `undefined` key.
if (Symbol.asyncDispose === undefined) delete (/** @type {Record<PropertyKey, unknown>} */ (/** @type {unknown} */ (IndexLifecycle.prototype)))[Symbol.asyncDispose];
