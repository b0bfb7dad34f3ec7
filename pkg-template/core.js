// Environment-independent part of the memdex JS API. Each entry point
// (index.js for browsers, node.js, workerd.js) only differs in how it gets
// the .wasm bytes or module, and passes that loader to `defineMemdex`.
import { Engine } from './memdex.js';

/** An error raised by memdex, with a stable machine-readable `code`. */
export class MemdexError extends Error {
  constructor(code, message, options) {
    super(message, options);
    this.name = 'MemdexError';
    this.code = code;
  }
}

// Errors thrown by the wasm layer are JS Errors carrying `code`; a wasm trap
// (a Rust panic, compiled with panic=abort) surfaces as a WebAssembly.RuntimeError.
function toMemdexError(err) {
  if (err instanceof MemdexError) return err;
  if (err && typeof err.code === 'string') return new MemdexError(err.code, err.message, { cause: err });
  if (typeof WebAssembly !== 'undefined' && err instanceof WebAssembly.RuntimeError) {
    return new MemdexError('INTERNAL', `memdex engine crashed: ${err.message}`, { cause: err });
  }
  return err;
}

function call(fn) {
  try {
    return fn();
  } catch (err) {
    throw toMemdexError(err);
  }
}

/**
 * Builds the `Memdex` class around `loadWasm(source)`, which must initialise
 * the wasm-bindgen glue once (later calls are cheap no-ops).
 */
export function defineMemdex(loadWasm) {
  let loading = null;
  const ensureLoaded = (source) => {
    if (!loading) {
      loading = Promise.resolve()
        .then(() => loadWasm(source))
        .catch((err) => {
          loading = null; // allow a retry, e.g. after a network failure
          throw new MemdexError('WASM_LOAD', `could not load memdex_bg.wasm: ${err?.message ?? err}`, { cause: err });
        });
    }
    return loading;
  };

  return class Memdex {
    #engine;

    /** Use `Memdex.create()`; the constructor is private. */
    constructor(engine) {
      if (!(engine instanceof Engine)) {
        throw new MemdexError('USAGE', 'use `await Memdex.create(options)` to make an index');
      }
      this.#engine = engine;
    }

    /** Loads the wasm module (once) and creates an empty in-memory index. */
    static async create(options = {}) {
      const { wasm, ...config } = options ?? {};
      await ensureLoaded(wasm);
      const hasConfig = Object.keys(config).length > 0;
      return new Memdex(call(() => new Engine(hasConfig ? config : undefined)));
    }

    /** Adds or replaces (by `id`) one document. */
    add(doc) {
      call(() => this.#engine.add(doc));
    }

    /** Adds many documents; returns how many were added. */
    addAll(docs) {
      let n = 0;
      for (const doc of docs) {
        this.add(doc);
        n++;
      }
      return n;
    }

    /** Removes a document by id; returns whether it existed. */
    remove(id) {
      return call(() => this.#engine.remove(String(id)));
    }

    /** The stored document with this id, or `undefined`. */
    get(id) {
      return call(() => this.#engine.get(String(id)));
    }

    /** Ranked search; see `SearchOptions` in index.d.ts. */
    search(query, options) {
      return call(() => this.#engine.search(String(query ?? ''), options));
    }

    /** Document, term and segment counts. */
    stats() {
      return call(() => this.#engine.stats());
    }

    /** Frees the wasm memory held by this index; the object is unusable afterwards. */
    free() {
      this.#engine?.free();
      this.#engine = undefined;
    }

    [Symbol.dispose]() {
      this.free();
    }
  };
}
