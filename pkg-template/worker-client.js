// Main-thread side of `Memdex.openInWorker()`: the same API as `Memdex`,
// every method async, backed by a dedicated module worker (worker.js) that
// owns the wasm engine. Documents cross in batches, so neither indexing nor
// structured cloning blocks the main thread for long.
import { MemdexError, rejectedDocument } from './core.js';

const METHODS = [
  'add', 'remove', 'removeWhere', 'get', 'search', 'suggest', 'count',
  'compact', 'stats', 'export', 'commit', 'reload',
];

function revive(error) {
  const err = new MemdexError(error?.code ?? 'INTERNAL', error?.message ?? 'memdex worker failed');
  if (error?.reason !== undefined) err.reason = error.reason;
  if (error?.added !== undefined) err.added = error.added;
  return err;
}

const INVOKE = Symbol('invoke');

class Channel {
  #worker;
  #next = 1;
  #pending = new Map();
  #dead = null;

  constructor(worker) {
    this.#worker = worker;
    worker.addEventListener('message', ({ data }) => {
      const p = this.#pending.get(data?.id);
      if (!p) return;
      this.#pending.delete(data.id);
      if (data.error) p.reject(revive(data.error));
      else p.resolve(data.result);
    });
    const fail = (message) => {
      this.#dead = new MemdexError('INTERNAL', `memdex worker stopped: ${message}`);
      for (const p of this.#pending.values()) p.reject(this.#dead);
      this.#pending.clear();
    };
    worker.addEventListener('error', (e) => {
      e.preventDefault?.();
      fail(e.message ?? 'error');
    });
    worker.addEventListener('messageerror', () => fail('a message could not be deserialized'));
  }

  call(method, args, transfer = []) {
    if (this.#dead) return Promise.reject(this.#dead);
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      try {
        this.#worker.postMessage({ id, method, args }, transfer);
      } catch (err) {
        this.#pending.delete(id);
        reject(
          new MemdexError('USAGE', `cannot send ${method}() arguments to the worker (${err?.message}); pass plain data only`),
        );
      }
    });
  }

  terminate() {
    this.#worker.terminate();
    this.#dead = new MemdexError('CLOSED', 'this index is closed; open it again with Memdex.openInWorker()');
  }
}

class RemoteMemdex {
  #channel;
  #closing = null;
  #name;

  constructor(channel, name) {
    this.#channel = channel;
    this.#name = name;
  }

  get name() {
    return this.#name;
  }

  [INVOKE](method, args) {
    if (this.#closing) {
      return Promise.reject(new MemdexError('CLOSED', `index '${this.#name}' is closed; open it again with Memdex.openInWorker()`));
    }
    return this.#channel.call(method, args);
  }

  async addAll(docs) {
    return this.addMany(docs);
  }

  /** Sends documents to the worker in batches; resolves to the number added. */
  async addMany(docs, options = {}) {
    if (docs === null || typeof docs !== 'object' || !(Symbol.iterator in docs || Symbol.asyncIterator in docs)) {
      throw new MemdexError('USAGE', 'addMany(docs): docs must be an iterable or async iterable of documents');
    }
    const { onProgress, batchSize = 500, total } = options ?? {};
    if (!(Number.isInteger(batchSize) && batchSize >= 1)) throw new MemdexError('USAGE', 'addMany: `batchSize` must be an integer >= 1');
    const known = total ?? (Array.isArray(docs) ? docs.length : undefined);
    let added = 0;
    let batch = [];
    // One batch in flight while the next is collected.
    let inFlight = Promise.resolve();
    const send = async (b) => {
      await inFlight;
      inFlight = this[INVOKE]('addBatch', [b]).then(
        (n) => {
          added += n;
          onProgress?.({ added, total: known });
        },
        (err) => {
          // The worker stopped at a rejected document; the ones before it stay.
          if (!Number.isInteger(err?.added)) throw err;
          added += err.added;
          throw rejectedDocument(err, added, b[err.added]?.id);
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

  /** Closes the worker-side index (committing if configured) and terminates the worker. */
  close() {
    if (!this.#closing) {
      this.#closing = this.#channel.call('close', []).finally(() => this.#channel.terminate());
    }
    return this.#closing;
  }
}

for (const method of METHODS) {
  Object.defineProperty(RemoteMemdex.prototype, method, {
    value: function (...args) {
      return this[INVOKE](method, args);
    },
    writable: true,
    configurable: true,
  });
}

/** Builds `Memdex.openInWorker(options)` around a worker factory. */
export function defineOpenInWorker(makeWorker) {
  /** @param {any} [options] */
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
    const worker = options.worker ?? makeWorker();
    const { worker: _w, ...rest } = options;
    const channel = new Channel(worker);
    try {
      await channel.call('open', [rest]);
    } catch (err) {
      channel.terminate();
      throw err;
    }
    return new RemoteMemdex(channel, rest.name ?? 'memdex');
  };
}
