// The wasm instance of this realm (a page, a worker, a Node process): its
// loading, its restart after a trap, the freeing of wasm objects, and the
// mapping of everything the engine throws to `MemdexError`.
import { Engine, buildName, loadIndex, __memdexReset } from './memdex.js';
import { MemdexError, usage } from './memdex-error.js';

/**
 * The engine of one open index, shared by the index, the realm and the
 * finalizer. `engine` is undefined once freed or after a trap.
 * @typedef {{ engine: Engine | undefined, epoch: number, crashed: boolean, wake: () => void, name: string }} EngineBox
 */

/**
 * What an environment gives memdex: how to load the wasm glue, which storage
 * adapters it offers by name, and the in-process (or cross-tab) writer lock.
 * Each entry point (index.js for browsers, node.js, workerd.js) makes one
 * and exports `class Memdex extends MemdexBase { static platform = ... }`.
 *
 * @typedef {object} Platform
 * @property {(source?: any, english?: boolean) => unknown} loadWasm initialises the glue once (`source`: whatever `Memdex.open({ wasm })` was given; else `english`: the English wasm, not the all-languages one)
 * @property {LanguageSwitch} [languages] set when the platform has an English wasm beside the all-languages one, and switches between them (languages.js; the browser entry only)
 * @property {Record<string, (options: StorageOptions) => import('./storage.js').StorageAdapter>} storages named adapters ('memory', 'fs', 'indexeddb', ...)
 * @property {<T>(name: string, fn: () => Promise<T>) => Promise<T>} withIndexLock
 * @property {'full' | 'lexical'} [build] the build the entry loads by default (undefined: full)
 */

/**
 * @typedef {object} LanguageSwitch
 * @property {(platform: Platform, source: unknown, config: Record<string, any> | undefined) => Promise<void>} loadFor
 * @property {<T>(platform: Platform, source: unknown, name: string, fn: () => Promise<T>) => Promise<T>} inItsLanguage
 */

/**
 * The open options a named storage reads.
 * @typedef {{ dir?: string, database?: string }} StorageOptions
 */

/**
 * What the wasm layer throws: an Error carrying a code and the engine
 * error's fields, or anything else (a trap, a glue error).
 * @typedef {Error & { code?: unknown, reason?: string, added?: number, holder?: MemdexError['holder'], data?: MemdexError['data'] }} EngineError
 */

/**
 * The one wasm instance of this realm. A trap (a Rust panic or allocation
 * failure, compiled with panic=abort; out-of-bounds access) leaves it
 * unusable: borrow flags stuck, allocator state unknown. The trapping call
 * answers INTERNAL; every open index of the realm then drops its engine,
 * and the next call re-instantiates the wasm (once, from the compiled
 * module) and reloads that index from storage. `inflight` counts async
 * engine calls (commits, loads): they resume inside the old instance, so it
 * is reset only once they have settled.
 */
export const realm = {
  epoch: 0, // bumped by each trap: wasm objects of an older epoch are never freed into the new instance
  dead: false,
  inflight: 0,
  /** @type {(() => void) | null} */ drained: null,
  /** @type {Promise<unknown> | null} */ reviving: null,
  /** @type {WebAssembly.Module | undefined} the compiled module, instantiated again after a trap */ module: undefined,
  /** @type {string | undefined} the build the instance runs (`buildName()`), once loaded */ build: undefined,
  /** @type {'english' | 'all' | undefined} which wasm of a platform with two the instance runs (languages.js) */ languages: undefined,
  fresh: false, // the next revive fetches the wasm anew instead of instantiating `module` again (a switch of languages)
  /** @type {Set<EngineBox>} engine boxes of the open indexes */
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

/**
 * Runs an async engine call, counted so a dead instance is reset only after it.
 * @template T
 * @param {() => Promise<T>} start
 * @returns {Promise<T>}
 */
export async function engineAsync(start) {
  realm.inflight++;
  try {
    return await start(); // a trap may also throw before the promise exists
  } catch (err) {
    throw toMemdexError(err);
  } finally {
    if (--realm.inflight === 0) realm.drained?.();
  }
}

/**
 * A fresh wasm instance after a trap (shared by every index of the realm).
 * @param {Platform} platform
 */
function revive(platform) {
  realm.reviving ??= (async () => {
    if (realm.inflight > 0) await new Promise((resolve) => (realm.drained = () => resolve(undefined)));
    realm.drained = null;
    realm.module = __memdexReset() ?? realm.module; // kept if this load fails and is retried
    if (realm.fresh) realm.module = undefined;
    await Promise.resolve(platform.loadWasm(realm.module, realm.languages === 'english')).catch((/** @type {Error | undefined} */ err) => {
      throw wasmLoadError(realm.languages === 'english' ? 'memdex-english_bg.wasm' : 'memdex_bg.wasm', err);
    });
    realm.fresh = false;
    realm.dead = false;
  })().finally(() => {
    realm.reviving = null;
  });
  return realm.reviving;
}

/**
 * Replaces the English wasm instance by the all-languages one (languages.js
 * checks that no index opened whole is open). Its objects are never freed
 * into the new instance; async calls in flight finish in the old one first.
 * @param {Platform} platform
 */
export function switchToAllLanguages(platform) {
  if (!realm.dead) {
    realm.dead = true;
    realm.epoch++;
  }
  realm.languages = 'all';
  realm.fresh = true;
  return revive(platform);
}

/**
 * Frees a wasm object of epoch `epoch` unless its instance is gone.
 * @param {{ free?: () => void, __destroy_into_raw?: () => unknown } | undefined | null} obj
 * @param {number} epoch
 */
export function dispose(obj, epoch) {
  if (!obj) return;
  if (epoch === realm.epoch && !realm.dead) obj.free?.();
  else obj.__destroy_into_raw?.();
}

/**
 * Errors thrown by the wasm layer are JS Errors carrying `code`; a wasm trap
 * (a Rust panic, compiled with panic=abort) surfaces as a WebAssembly.RuntimeError.
 * @param {unknown} thrown
 * @returns {unknown} a MemdexError, or `thrown` itself when it is not memdex's
 */
export function toMemdexError(thrown) {
  if (thrown instanceof MemdexError) return thrown;
  const err = /** @type {EngineError} */ (thrown);
  if (err && typeof err.code === 'string') {
    // The engine's own error (named MemdexError by the wasm layer) carries
    // nothing more than its code, message and fields, and its stack is glue
    // code: no `cause` for it, so an uncaught one prints short.
    const e = new MemdexError(err.code, err.message, err.name === 'MemdexError' ? undefined : { cause: err });
    if (err.reason !== undefined) e.reason = err.reason;
    if (err.holder !== undefined) e.holder = err.holder;
    if (err.data !== undefined) e.data = err.data;
    return e;
  }
  if (typeof WebAssembly !== 'undefined' && thrown instanceof WebAssembly.RuntimeError) {
    trapped();
    return new MemdexError(
      'INTERNAL',
      `memdex engine crashed: ${thrown.message}; it restarts on the next call, reloading the index from storage (writes not yet committed are lost)`,
      { cause: thrown },
    );
  }
  return thrown;
}

/**
 * `fn()` with engine errors as MemdexErrors.
 * @template T
 * @param {() => T} fn
 * @returns {T}
 */
export function call(fn) {
  try {
    return fn();
  } catch (err) {
    throw toMemdexError(err);
  }
}

/**
 * `call(fn)` for a search, with the wall time it took as `tookMs`.
 * @template {{ tookMs?: number }} T
 * @param {() => T} fn
 * @returns {T}
 */
export function timed(fn) {
  const started = performance.now();
  const results = call(fn);
  results.tookMs = performance.now() - started;
  return results;
}

// Backs up close(): engines of indexes dropped without close() are freed
// when the wrapper is garbage-collected (the engine itself holds no reference
// back to the wrapper).
export const finalizer =
  typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry((/** @type {EngineBox} */ box) => {
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

/** @type {WeakMap<Platform, Promise<unknown>>} the glue's loading, once per platform */
const loading = new WeakMap();

/**
 * One realm holds one wasm instance: an entry whose default build is not the
 * one already loaded (`memdex` and `memdex/lexical` imported side by side)
 * fails instead of running on the other build. A `wasm` given to open is
 * the caller's choice and not checked.
 * @param {Platform} platform
 * @param {unknown} source
 */
function checkBuild(platform, source) {
  const want = platform.build ?? 'full';
  const loaded = realm.build;
  if (source === undefined && loaded !== undefined && loaded !== want) {
    const entry = (/** @type {string} */ b) => (b === 'full' ? "'memdex'" : "'memdex/lexical'");
    throw usage(
      `this ${typeof window === 'undefined' ? 'process' : 'page'} already runs memdex's ${loaded} build (${entry(loaded)}); import one build per realm: ${entry(loaded)} or ${entry(want)}, not both`,
    );
  }
}

/**
 * @param {string} wasmFile
 * @param {Error | undefined} err
 */
function wasmLoadError(wasmFile, err) {
  return new MemdexError('WASM_LOAD', `could not load ${wasmFile}: ${err?.message ?? err}; see "Entry points" in the memdex README`, { cause: err });
}

/**
 * Loads the glue of `platform` once (again after a trap).
 * @param {Platform} platform
 * @param {unknown} source
 * @param {boolean} [allLanguages] a first load fetches the all-languages wasm, not the English one (languages.js)
 */
export function ensureLoaded(platform, source, allLanguages = false) {
  if (realm.dead) return revive(platform);
  let load = loading.get(platform);
  if (!load) {
    const english = platform.languages !== undefined && source === undefined && !allLanguages;
    const wasmFile = platform.build === 'lexical' ? 'memdex-lexical_bg.wasm' : english ? 'memdex-english_bg.wasm' : 'memdex_bg.wasm';
    load = Promise.resolve()
      .then(() => checkBuild(platform, source)) // before fetching a wasm this realm would not run
      .then(() =>
        Promise.resolve()
          .then(() => platform.loadWasm(source, english))
          .catch((/** @type {Error | undefined} */ err) => {
            loading.delete(platform); // allow a retry, e.g. after a network failure
            throw wasmLoadError(wasmFile, err);
          }),
      )
      .then(() => {
        realm.build = buildName();
        if (platform.languages && source === undefined) realm.languages = english ? 'english' : 'all';
        checkBuild(platform, source);
      });
    loading.set(platform, load);
  }
  return load;
}

/**
 * Loads the wasm for an open, import or recover given its engine `config`:
 * the platform's language switch chooses between its wasm files when it
 * has one (languages.js), else its only wasm.
 * @param {Platform} platform
 * @param {unknown} source the caller's `wasm`
 * @param {Record<string, any> | undefined} config
 */
export async function loadFor(platform, source, config) {
  if (platform.languages) return platform.languages.loadFor(platform, source, config);
  await ensureLoaded(platform, source);
}

/**
 * `fn()`, run again in the wasm with every language when the platform's
 * English one refused the index's language (languages.js).
 * @template T
 * @param {Platform} platform
 * @param {unknown} source the caller's `wasm`
 * @param {string} name the index
 * @param {() => Promise<T>} fn
 * @returns {Promise<T>}
 */
export function inItsLanguage(platform, source, name, fn) {
  return platform.languages ? platform.languages.inItsLanguage(platform, source, name, fn) : fn();
}

/**
 * Loads the last commit of `name` into a new engine (`empty()` when nothing
 * is stored), in a live instance: an engine crash during the load means
 * loading again in the restarted one.
 * @param {Platform} platform
 * @param {import('./storage.js').StorageAdapter} adapter
 * @param {string} name
 * @param {object | undefined} config the engine config (schema, analyzer); undefined: the stored one
 * @param {() => Engine} empty
 * @param {unknown} [cacheBytes] the `cacheBytes` open option: stored fields kept packed behind a page cache that size
 * @returns {Promise<{ engine: Engine, epoch: number, stored: boolean }>}
 */
export async function loadEngine(platform, adapter, name, config, empty, cacheBytes) {
  for (;;) {
    if (realm.dead) await revive(platform);
    const epoch = realm.epoch;
    /** @type {import('./memdex.js').LoadedIndex | undefined} */
    const loaded = await engineAsync(() => loadIndex(adapter, name, cacheBytes));
    if (epoch !== realm.epoch) {
      dispose(loaded, epoch);
      continue;
    }
    try {
      const engine = call(() => (loaded ? Engine.fromLoaded(loaded, config) : withCache(empty(), cacheBytes)));
      return { engine, epoch, stored: loaded !== undefined };
    } finally {
      dispose(loaded, epoch);
    }
  }
}

/**
 * `engine` keeping its stored fields packed behind a `cacheBytes` page
 * cache (freed if the option is refused).
 * @param {Engine} engine
 * @param {unknown} cacheBytes
 */
export function withCache(engine, cacheBytes) {
  if (cacheBytes === undefined) return engine;
  try {
    engine.setDocCache(cacheBytes);
  } catch (err) {
    engine.free();
    throw err;
  }
  return engine;
}

/**
 * The platform of the class a static method was called on.
 * @param {{ platform?: Platform }} cls
 */
export function platformOf(cls) {
  const platform = cls?.platform;
  if (!platform) throw usage('import Memdex from the package (memdex), not from memdex/core.js');
  return platform;
}
