// @ts-check
// Settings from the Worker's environment (wrangler.toml [vars], secrets,
// worker/.dev.vars locally). Parsed once per isolate and per distinct value:
// `env` is the same object for every request of an isolate, so a WeakMap
// keyed by it costs one lookup per request.


/**
 * @typedef {object} Limits
 * @property {number} maxBodyBytes       request body, in bytes (UTF-8, as sent)
 * @property {number} maxDocsPerRequest  documents in one write request
 * @property {number} maxDocBytes        one document's JSON text, in bytes
 * @property {number} maxQueryBytes      a query (or suggest prefix), in UTF-8 bytes
 * @property {number} maxLimit           `limit` of search and suggest
 * @property {number} maxNamespacesPerKey namespaces one key may create
 * @property {number} maxNamespaceBytes  a namespace's segments in memory (`stats().bytes`) past which writes that add or enlarge documents are refused
 * @property {number} requestsPerMinute  per key, per isolate (token bucket); each JSON-RPC message of a /mcp batch costs one
 * @property {number} maxBatchMessages   JSON-RPC messages in one /mcp request
 * @property {number} authFailuresPerMinute requests with a missing or invalid key, per client address, per isolate
 */

/** @type {Limits} */
export const DEFAULT_LIMITS = {
  maxBodyBytes: 1 << 20,
  maxDocsPerRequest: 1000,
  maxDocBytes: 64 << 10,
  maxQueryBytes: 1024,
  maxLimit: 100,
  maxNamespacesPerKey: 100,
  // The writer holds its namespace whole: ~175k benchmark documents (40.7
  // MiB of segments, 23.9 MiB committed) are the most an isolate loads.
  maxNamespaceBytes: 32 << 20,
  requestsPerMinute: 1200,
  maxBatchMessages: 20,
  authFailuresPerMinute: 60,
};

/**
 * @typedef {object} Settings
 * @property {Limits} limits
 * @property {string[] | '*'} corsOrigins  origins allowed by CORS and at /mcp
 * @property {number} revalidateMs  at most one manifest read per namespace per this many ms, per isolate
 * @property {number} groupCommitMs a write waits this long for others to share its commit (<= 50)
 * @property {number} blobGraceMs   blobs dropped by a commit are deleted from KV this much later
 * @property {number} cacheBytes    isolate cache budget for read copies of indexes
 * @property {number} pageCacheBytes each index keeps its stored fields packed, with this many bytes of unpacked pages; a lazy copy holds this many bytes of fetched parts (`cacheBytes` of Memdex.open)
 * @property {number} lazyAboveBytes a read copy of a namespace whose committed index is larger opens lazily (`lazyAboveBytes` of Memdex.open)
 * @property {number} publishMs     at most one manifest write to KV per namespace per this many ms
 * @property {number} writerIdleMs  a writer frees its index after this long without requests (0: never)
 * @property {number} cacheEntries  at most this many namespaces with a read copy per isolate
 * @property {boolean} testHooks    MEMDEX_TEST_HOOKS=1: the test-only fault injection of test-hooks.js
 */

const cache = new WeakMap();

/**
 * @param {Env} env
 * @returns {Settings}
 */
export function settings(env) {
  let s = cache.get(env);
  if (!s) {
    s = parse(env);
    cache.set(env, s);
  }
  return s;
}

/** @param {Env} env @returns {Settings} */
function parse(env) {
  const limits = { ...DEFAULT_LIMITS };
  if (env.MEMDEX_LIMITS) {
    const given = parseJsonSetting('MEMDEX_LIMITS', env.MEMDEX_LIMITS);
    for (const [key, value] of Object.entries(given)) {
      if (!(key in limits)) throw new Error(`MEMDEX_LIMITS: unknown limit "${key}"; known: ${Object.keys(limits).join(', ')}`);
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw new Error(`MEMDEX_LIMITS.${key} must be a positive integer`);
      /** @type {any} */ (limits)[key] = value;
    }
  }
  const origins = (env.MEMDEX_CORS_ORIGINS ?? '').trim();
  return {
    limits,
    corsOrigins: origins === '*' ? '*' : origins.split(/[\s,]+/).filter(Boolean),
    revalidateMs: int(env.MEMDEX_REVALIDATE_MS, 1000, 0, 3_600_000, 'MEMDEX_REVALIDATE_MS'),
    // No write waits more than 50 ms for company.
    groupCommitMs: int(env.MEMDEX_GROUP_COMMIT_MS, 20, 0, 50, 'MEMDEX_GROUP_COMMIT_MS'),
    // Longer than KV's propagation (~60 s): a reader elsewhere that still
    // sees the previous manifest can load all of its blobs.
    blobGraceMs: int(env.MEMDEX_BLOB_GRACE_MS, 10 * 60_000, 0, 7 * 86_400_000, 'MEMDEX_BLOB_GRACE_MS'),
    // KV takes about one write per second to the same key.
    publishMs: int(env.MEMDEX_PUBLISH_MS, 1000, 0, 60_000, 'MEMDEX_PUBLISH_MS'),
    cacheBytes: int(env.MEMDEX_CACHE_BYTES, 32 << 20, 0, 1 << 30, 'MEMDEX_CACHE_BYTES'),
    // Stored fields packed (about 40 % of their size) and 4 MiB of pages
    // unpacked: 64 pages, more than the hits of a few searches touch.
    pageCacheBytes: int(env.MEMDEX_PAGE_CACHE_BYTES, 4 << 20, 0, 1 << 30, 'MEMDEX_PAGE_CACHE_BYTES'),
    // Whole, a namespace takes about twice its committed bytes, at most
    // ~24 MiB committed fits an isolate (BENCHMARKS "Isolate memory"); a
    // larger one is read lazily: its segment heads and ids, then what each
    // search touches.
    lazyAboveBytes: int(env.MEMDEX_LAZY_ABOVE_BYTES, 16 << 20, 0, 2 ** 32 - 1, 'MEMDEX_LAZY_ABOVE_BYTES'),
    // Writers of several namespaces may share an isolate (and its 128 MiB):
    // an idle one gives its memory back; reopening costs one load.
    writerIdleMs: int(env.MEMDEX_WRITER_IDLE_MS, 30_000, 0, 86_400_000, 'MEMDEX_WRITER_IDLE_MS'),
    // Each copy costs an engine and its bookkeeping however small the
    // namespace: the byte budget alone would let many tiny ones pile up.
    cacheEntries: int(env.MEMDEX_CACHE_ENTRIES, 256, 1, 100_000, 'MEMDEX_CACHE_ENTRIES'),
    // Only the test suites set it (never wrangler.toml): it lets a request
    // break the engine or the writer's storage on purpose.
    testHooks: env.MEMDEX_TEST_HOOKS === '1',
  };
}

/**
 * @param {string} name
 * @param {string} text
 * @returns {Record<string, unknown>}
 */
function parseJsonSetting(name, text) {
  let value;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new Error(`${name} is not valid JSON: ${/** @type {Error} */ (err).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error(`${name} must be a JSON object`);
  return value;
}

/**
 * @param {string | undefined} text
 * @param {number} fallback
 * @param {number} min
 * @param {number} max
 * @param {string} name
 */
function int(text, fallback, min, max, name) {
  if (text === undefined || text === '') return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be an integer from ${min} to ${max}`);
  return n;
}
