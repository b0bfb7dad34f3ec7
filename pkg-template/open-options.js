// The options of `Memdex.open`, `import` and `recover` as the engine and the
// lifecycle need them: the engine config, the storage adapter, auto-commit
// settings, the index name; and the page watcher that commits on hide.
import { describe, isObject, usage } from './memdex-error.js';

/**
 * What a caller may pass to open (checked here, key by key).
 * @typedef {import('./index.js').OpenOptions & { fields?: unknown }} OpenInput
 */

/** @typedef {{ delayMs: number, maxDelayMs: number, maxWrites: number }} AutoCommit */

/** The index method the page watcher calls: commits pending writes (not public API). */
export const FLUSH_ON_HIDE = Symbol('flushOnHide');

export const OPEN_OPTIONS = new Set([
  'name', 'storage', 'dir', 'database', 'schema', 'defaultSchema', 'language', 'analyzer', 'k1', 'b', 'autoCommit', 'wasm', 'onError', 'embed', 'cacheBytes',
  'lazy', 'lazyAboveBytes',
]);

/** Open options a lazy index has no use for: it reads a committed index as it is and never writes. */
export const NOT_LAZY = ['schema', 'defaultSchema', 'language', 'analyzer', 'k1', 'b', 'autoCommit', 'embed', 'onError'];

/**
 * Options removed in 0.x: an error naming the replacement, never a silently different index.
 * @param {OpenInput} options
 */
export function refuseRemoved(options) {
  if (options.fields !== undefined) {
    throw usage('`fields` was removed in 0.x: pass `schema` (it adds to the default fields), with `defaultSchema: false` for your fields only');
  }
}

/**
 * Engine config from the friendly options (undefined = default / stored).
 * @param {OpenInput} options
 * @returns {Record<string, unknown> | undefined}
 */
export function engineConfig(options) {
  const { schema, defaultSchema, language, analyzer, k1, b } = options;
  refuseRemoved(options);
  /** @type {Record<string, unknown> & { analyzer?: object }} */
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

/** @type {AutoCommit} */
const AUTO_COMMIT = { delayMs: 1000, maxDelayMs: 2000, maxWrites: 100 };

/**
 * `delayMs` restarts with every write (a burst commits once); `maxDelayMs`
 * bounds how long any write waits, so a steady writer still commits.
 * @param {unknown} value the `autoCommit` option
 * @param {boolean} persistent
 * @returns {AutoCommit | null}
 */
export function autoCommitSettings(value, persistent) {
  if (value === undefined) value = persistent;
  if (value === false || value === null) return null;
  if (value === true) return { ...AUTO_COMMIT };
  if (!isObject(value)) throw usage('`autoCommit` must be false, true or { delayMs, maxDelayMs, maxWrites }');
  for (const key of Object.keys(value)) {
    if (!(key in AUTO_COMMIT)) throw usage(`unknown option \`autoCommit.${key}\`; expected delayMs, maxDelayMs or maxWrites`);
  }
  const { delayMs = AUTO_COMMIT.delayMs, maxWrites = AUTO_COMMIT.maxWrites } = /** @type {Partial<AutoCommit>} */ (value);
  const maxDelayMs = /** @type {Partial<AutoCommit>} */ (value).maxDelayMs ?? Math.max(AUTO_COMMIT.maxDelayMs, delayMs);
  if (!(Number.isFinite(delayMs) && delayMs >= 0)) throw usage('`autoCommit.delayMs` must be a number >= 0');
  if (!(Number.isFinite(maxDelayMs) && maxDelayMs >= delayMs)) throw usage('`autoCommit.maxDelayMs` must be a number >= `delayMs`');
  if (!(Number.isInteger(maxWrites) && maxWrites >= 1)) throw usage('`autoCommit.maxWrites` must be an integer >= 1');
  return { delayMs, maxDelayMs, maxWrites };
}

/**
 * Pages commit when they are hidden or unloaded (best effort: the browser
 * may end the page before an IndexedDB transaction completes). The listener
 * holds the index weakly, so an index dropped without close() can still be
 * collected. Returns the function that stops watching.
 * @param {{ [FLUSH_ON_HIDE](): void }} index
 * @returns {() => void}
 */
export function watchPage(index) {
  const doc = globalThis.document;
  const target = doc ? globalThis : null;
  if (!doc || !target || typeof target.addEventListener !== 'function' || typeof WeakRef !== 'function') return () => {};
  const ref = new WeakRef(index);
  const onHide = (/** @type {Event} */ event) => {
    // pagehide always; visibilitychange only when the page stops being visible.
    if (event.type === 'visibilitychange' && doc.visibilityState === 'visible') return;
    ref.deref()?.[FLUSH_ON_HIDE]();
  };
  target.addEventListener('pagehide', onHide);
  doc.addEventListener('visibilitychange', onHide);
  return () => {
    target.removeEventListener('pagehide', onHide);
    doc.removeEventListener('visibilitychange', onHide);
  };
}

/**
 * The adapter an open names, and whether it persists.
 * @param {import('./realm.js').Platform} platform
 * @param {OpenInput} options
 * @returns {{ adapter: import('./storage.js').StorageAdapter, persistent: boolean }}
 */
export function resolveStorage(platform, options) {
  const { storages } = platform;
  const spec = /** @type {unknown} */ (options.storage ?? 'memory');
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
    return { adapter: /** @type {import('./storage.js').StorageAdapter} */ (/** @type {unknown} */ (spec)), persistent: true };
  }
  throw usage(
    '`storage` must be a name (\'memory\', \'fs\', \'indexeddb\') or an adapter { get, put, delete, list, swap } (see memdex/storage)',
  );
}

/**
 * The index name rule of open, import and recover (a key prefix in storage).
 * @param {unknown} name
 * @returns {string}
 */
export function checkName(name) {
  if (typeof name !== 'string' || name === '' || /[\s/]/.test(name)) {
    throw usage(`\`name\` must be a non-empty string without spaces or '/', got ${describe(name)}`);
  }
  return name;
}
