// Main-thread side of `Memdex.openInWorker()`: the whole `Memdex` API, every
// method and getter async, backed by a dedicated module worker (worker.js)
// that owns the wasm engine. Documents cross in batches, so neither indexing
// nor structured cloning blocks the main thread for long. What cannot cross
// a thread has a plain-data form: `update` takes a list of operations
// instead of a function, and `pack` counts tokens with the default counter.
import { MemdexError } from './memdex-error.js';
import { rejectedDocument } from './documents.js';
import { Embedder, checkEmbedOption } from './embed.js';
import { embedInClient } from './worker-embed.js';

/**
 * Methods answered by the worker's index as they are (arguments and results
 * are plain data).
 */
const METHODS = /** @type {const} */ ([
  'add', 'patch', 'embedDocuments', 'remove', 'removeWhere', 'get', 'search', 'related', 'suggest', 'count', 'compact', 'stats', 'export',
  'commit', 'reload', 'refresh', 'ready',
]);
/** Getters read in the worker (each an async property here). */
const GETTERS = /** @type {const} */ (['size', 'generation', 'dirty']);

/**
 * An error as the worker sends it.
 * @typedef {{ code?: string, message?: string, reason?: string, added?: number, holder?: MemdexError['holder'], data?: MemdexError['data'] }} SentError
 */

/** @param {SentError | undefined} error */
function revive(error) {
  const err = new MemdexError(error?.code ?? 'INTERNAL', error?.message ?? 'memdex worker failed');
  if (error?.reason !== undefined) err.reason = error.reason;
  if (error?.added !== undefined) err.added = error.added;
  if (error?.holder !== undefined) err.holder = error.holder;
  if (error?.data !== undefined) err.data = error.data;
  return err;
}

/**
 * The Web Worker calls the client uses.
 * @typedef {Pick<Worker, 'postMessage' | 'terminate'> & { addEventListener(type: string, listener: (event: MessageEvent & ErrorEvent) => void): void }} WorkerLike
 */

class Channel {
  #worker;
  #next = 1;
  /** @type {Map<number, { resolve: (value: unknown) => void, reject: (err: unknown) => void }>} */
  #pending = new Map();
  /** @type {MemdexError | null} */
  #dead = null;

  /**
   * @param {WorkerLike} worker
   * @param {string} script where the worker's script comes from, for the error when it does not start
   */
  constructor(worker, script) {
    this.#worker = worker;
    let started = false;
    worker.addEventListener('message', (/** @type {MessageEvent} */ { data }) => {
      started = true;
      const p = this.#pending.get(data?.id);
      if (!p) return;
      this.#pending.delete(data.id);
      if (data.error) p.reject(revive(data.error));
      else p.resolve(data.result);
    });
    const fail = (/** @type {string} */ message) => {
      // An error before the first answer: the script (or a module it
      // imports) did not load, so it is a loading error like the wasm's.
      this.#dead = started
        ? new MemdexError('INTERNAL', `memdex worker stopped: ${message}`)
        : new MemdexError('WASM_LOAD', `the memdex worker did not start (${message}; script: ${script}); see "Entry points" in the memdex README`);
      for (const p of this.#pending.values()) p.reject(this.#dead);
      this.#pending.clear();
    };
    worker.addEventListener('error', (/** @type {ErrorEvent} */ e) => {
      e.preventDefault?.();
      fail(e.message || 'its script failed to load');
    });
    worker.addEventListener('messageerror', () => {
      started = true;
      fail('a message could not be deserialized');
    });
  }

  /**
   * Calls `method` of the worker's index; resolves to its (cloned) result.
   * @param {string} method
   * @param {unknown[]} args
   * @returns {Promise<any>} what the worker answered: the method's result, as typed in index.d.ts
   */
  call(method, args) {
    if (this.#dead) return Promise.reject(this.#dead);
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      try {
        this.#worker.postMessage({ id, method, args });
      } catch (err) {
        this.#pending.delete(id);
        reject(
          new MemdexError('USAGE', `cannot send ${method}() arguments to the worker (${/** @type {Error} */ (err)?.message}); pass plain data only`),
        );
      }
    });
  }

  terminate() {
    this.#worker.terminate();
    this.#dead = new MemdexError('CLOSED', 'this index is closed; open it again with Memdex.openInWorker()');
  }
}

const INVOKE = Symbol('invoke');

/** The `Memdex` API over a worker; see `RemoteMemdex` in index.d.ts. */
export class RemoteMemdex {
  #channel;
  /** @type {Promise<void> | null} */
  #closing = null;
  #name;

  /**
   * @param {Channel} channel
   * @param {string} name
   */
  constructor(channel, name) {
    this.#channel = channel;
    this.#name = name;
  }

  /** The index name (its key prefix in storage). */
  get name() {
    return this.#name;
  }

  /** Whether `close()` or `free()` has been called. */
  get closed() {
    return this.#closing !== null;
  }

  /**
   * @param {string} method
   * @param {unknown[]} args
   */
  [INVOKE](method, args) {
    if (this.#closing) {
      return Promise.reject(new MemdexError('CLOSED', `index '${this.#name}' is closed; open it again with Memdex.openInWorker()`));
    }
    return this.#channel.call(method, args);
  }

  /**
   * Same as `addMany` (a worker adds asynchronously either way).
   * @param {Iterable<unknown> | AsyncIterable<unknown>} docs
   */
  async addAll(docs) {
    return this.addMany(docs);
  }

  /**
   * Sends documents to the worker in batches; resolves to the number added.
   * @param {Iterable<unknown> | AsyncIterable<unknown>} docs
   * @param {import('./index.js').AddManyOptions} [options]
   * @returns {Promise<number>}
   */
  async addMany(docs, options = {}) {
    if (docs === null || typeof docs !== 'object' || !(Symbol.iterator in docs || Symbol.asyncIterator in docs)) {
      throw new MemdexError('USAGE', 'addMany(docs): docs must be an iterable or async iterable of documents');
    }
    const { onProgress, batchSize = 500, total } = options ?? {};
    if (!(Number.isInteger(batchSize) && batchSize >= 1)) throw new MemdexError('USAGE', 'addMany: `batchSize` must be an integer >= 1');
    const known = total ?? (Array.isArray(docs) ? docs.length : undefined);
    let added = 0;
    /** @type {unknown[]} */
    let batch = [];
    // One batch in flight while the next is collected.
    /** @type {Promise<void>} */
    let inFlight = Promise.resolve();
    const send = async (/** @type {unknown[]} */ b) => {
      await inFlight;
      inFlight = this[INVOKE]('addBatch', [b]).then(
        (/** @type {number} */ n) => {
          added += n;
          onProgress?.({ added, total: known });
        },
        (/** @type {MemdexError} */ err) => {
          // The worker stopped at a rejected document; the ones before it stay.
          const before = err?.added;
          if (before === undefined || !Number.isInteger(before)) throw err;
          added += before;
          throw rejectedDocument(err, added, /** @type {{ id?: unknown } | undefined} */ (b[before])?.id);
        },
      );
      // Awaited by the next send or at the end; until then a rejection is
      // not "unhandled".
      inFlight.catch(() => {});
    };
    for await (const doc of docs) {
      batch.push(doc);
      if (batch.length >= batchSize) {
        await send(batch);
        batch = [];
      }
    }
    if (batch.length) await send(batch);
    await inFlight;
    return added;
  }

  /**
   * `Memdex#pack` in the worker. `countTokens` is a function and cannot
   * cross threads: the default counter (characters / 4) is used.
   * @param {string} query
   * @param {import('./index.js').PackOptions} options
   */
  pack(query, options) {
    if (typeof options?.countTokens === 'function') {
      return Promise.reject(
        new MemdexError('USAGE', 'pack: `countTokens` is a function and cannot be sent to a worker; leave it out (characters / 4) or pack with Memdex.open()'),
      );
    }
    return this[INVOKE]('pack', [query, options]);
  }

  /**
   * `Memdex#update` with a list of operations (`{ op: 'add', doc }`,
   * `{ op: 'remove', id }`, `{ op: 'removeWhere', filter }`) applied
   * atomically in the worker: a function cannot cross threads.
   * @param {unknown} operations
   * @param {{ retries?: number }} [options]
   */
  update(operations, options) {
    if (typeof operations === 'function') {
      return Promise.reject(
        new MemdexError(
          'USAGE',
          "update(fn): a function cannot be sent to a worker; pass the writes as a list, e.g. update([{ op: 'add', doc }, { op: 'remove', id }])",
        ),
      );
    }
    return this[INVOKE]('update', options === undefined ? [operations] : [operations, options]);
  }

  /**
   * Closes the worker-side index (committing if configured) and terminates the worker.
   * @returns {Promise<void>}
   */
  close() {
    if (!this.#closing) {
      this.#closing = this.#channel.call('close', []).finally(() => this.#channel.terminate());
    }
    return this.#closing;
  }

  /**
   * Drops uncommitted writes and terminates the worker (`close()` keeps them).
   * @returns {Promise<void>}
   */
  free() {
    if (!this.#closing) {
      this.#closing = this.#channel
        .call('free', [])
        .catch(() => {})
        .finally(() => this.#channel.terminate());
    }
    return this.#closing;
  }

  /** `await using` closes the index. */
  [Symbol.asyncDispose]() {
    return this.close();
  }
}

// Runtimes without Symbol.asyncDispose would get an `undefined` key.
if (Symbol.asyncDispose === undefined) delete (/** @type {Record<PropertyKey, unknown>} */ (/** @type {unknown} */ (RemoteMemdex.prototype)))[Symbol.asyncDispose];

for (const method of METHODS) {
  Object.defineProperty(RemoteMemdex.prototype, method, {
    value: function (/** @type {unknown[]} */ ...args) {
      return /** @type {RemoteMemdex} */ (this)[INVOKE](method, args);
    },
    writable: true,
    configurable: true,
  });
}
for (const getter of GETTERS) {
  Object.defineProperty(RemoteMemdex.prototype, getter, {
    get() {
      return /** @type {RemoteMemdex} */ (this)[INVOKE]('get:' + getter, []);
    },
    configurable: true,
  });
}

/**
 * Runs `makeWorker` and notes the URL it gives `new Worker`, as the bundler
 * rewrote it, for the error when the worker does not start. `new Worker(new
 * URL(...))` has to stay literal for bundlers to follow it, so the URL is
 * taken from the constructor call (the global is swapped only during this
 * synchronous call).
 * @param {() => WorkerLike} makeWorker
 */
function spawn(makeWorker) {
  const Native = globalThis.Worker;
  let script = 'worker.js';
  try {
    globalThis.Worker = class extends Native {
      /** @param {[string | URL, WorkerOptions?]} args */
      constructor(...args) {
        script = String(args[0]);
        super(...args);
      }
    };
  } catch {
    // A page that froze its globals: start the worker without the URL.
    return { worker: makeWorker(), script };
  }
  try {
    return { worker: makeWorker(), script };
  } finally {
    globalThis.Worker = Native;
  }
}

/**
 * Builds `Memdex.openInWorker(options)` around a worker factory.
 * @param {() => WorkerLike} makeWorker
 */
export function defineOpenInWorker(makeWorker) {
  /**
   * @param {import('./index.js').WorkerOpenOptions & { worker?: WorkerLike, storage?: unknown, onError?: unknown }} [options]
   * @returns {Promise<import('./index.js').RemoteMemdex>}
   */
  return async function openInWorker(options = {}) {
    if (options === null || typeof options !== 'object') throw new MemdexError('USAGE', 'openInWorker(options): options must be an object');
    if (options.storage !== undefined && typeof options.storage !== 'string') {
      throw new MemdexError(
        'USAGE',
        "openInWorker: `storage` must be a name ('memory' or 'indexeddb'); adapter objects cannot be sent to a worker",
      );
    }
    if (typeof options.onError === 'function') throw new MemdexError('USAGE', 'openInWorker: `onError` cannot be sent to a worker');
    if (typeof Worker !== 'function') throw new MemdexError('USAGE', 'openInWorker() needs Web Workers (a browser)');
    if (/** @type {unknown} */ (options.lazy) === 'auto') throw new MemdexError('USAGE', "openInWorker: `lazy: 'auto'` is for Memdex.open (a worker's index is either kind for its whole life); pass `lazy: true` or open it whole");
    if (options.lazy && options.embed !== undefined) throw new MemdexError('USAGE', 'openInWorker: a lazy index only searches; `embed` does not apply');
    // The embedder stays on this side (worker-embed.js).
    const embed = checkEmbedOption(options.embed);
    const { worker, script } = options.worker ? { worker: options.worker, script: 'the `worker` option' } : spawn(makeWorker);
    const { worker: _w, embed: _e, ...rest } = options;
    const channel = new Channel(worker, script);
    /** @type {Embedder | undefined} */
    let embedder;
    try {
      await channel.call('open', [rest]);
      if (embed) embedder = new Embedder(embed, new Set(await channel.call('vectorFields', [])));
    } catch (err) {
      if (embed) await channel.call('free', []).catch(() => {});
      channel.terminate();
      throw err;
    }
    // The prototype carries every method and getter of the interface
    // (defined above from METHODS and GETTERS).
    const remote = new RemoteMemdex(channel, rest.name ?? 'memdex');
    if (embedder) embedInClient(/** @type {any} */ (remote), embedder, (method, args) => remote[INVOKE](method, args));
    return /** @type {import('./index.js').RemoteMemdex} */ (/** @type {unknown} */ (remote));
  };
}
