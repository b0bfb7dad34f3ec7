// @ts-check
// The isolate's read copies of namespaces, loaded from Workers KV.
//
// Freshness: per namespace, at most one manifest read (one small KV get)
// per `revalidateMs`. When the manifest changed, the copy is reloaded;
// while that runs, requests keep being answered from the old copy if
// keeping both fits the cache budget, else they wait for the new one (a
// 175k-document namespace is ~50 MB in memory: two of them do not fit an
// isolate's 128 MiB, so the old copy is freed first). A request that needs
// a newer generation than the copy has (`minGeneration`) is answered by the
// namespace's writer instead; the copy catches up at its own pace.
//
// Budget: copies are evicted least recently used first once their summed
// size passes `cacheBytes` (a copy larger than the budget is still served,
// alone) or their number passes `cacheEntries`. Freed wasm memory is reused
// by the next load. A namespace that does not exist is never kept: each
// read of one costs a manifest get (the request rate bounds those), and
// names made up by a caller cannot fill the isolate.
//
// Kinds: a namespace of at most `lazyAboveBytes` committed is loaded whole;
// a larger one lazily (Memdex.open's `lazy: 'auto'`): the copy holds its
// segment heads and ids, and fetches from KV what each search touches
// (`pageCacheBytes` of it kept). A lazy copy answers searches, reads by
// id, suggestions, stats and describe; an export is the writer's.
//
// A copy whose engine failed with INTERNAL (a wasm trap) is dropped, so
// the next read loads a new one instead of asking a broken engine again.
import { settings } from './config.js';
import { ApiError } from './errors.js';
import { Memdex, tools } from './memdex.js';
import { INDEX_NAME, kvPrefix } from './ids.js';
import { kvStorage } from 'memdex/storage/kv';
import { wasmMemoryBytes } from './wasm-memory.js';
import { schemaKey, setSchemaOf } from './schema.js';
import { embedOption } from './embed.js';


/**
 * @typedef {object} Copy
 * @property {import('./reads.js').Index | null} index
 * @property {number} generation   0 while the namespace does not exist
 * @property {Uint8Array | null} manifest  the KV manifest the copy was loaded for
 * @property {number} checkedAt
 * @property {number} bytes
 * @property {number} lastUsed
 * @property {boolean} known  whether the manifest was read at least once
 * @property {Promise<void> | null} checking
 * @property {Promise<void> | null} loading
 */

/** @type {Map<string, Copy>} */
const copies = new Map();
let loads = 0;

/**
 * The read copy of `ns` if it is at least at generation `need`, else
 * `null` (the caller forwards to the writer). Throws NOT_FOUND for a
 * namespace that does not exist (as far as KV says and `need` allows).
 *
 * @param {Env} env
 * @param {ExecutionContext} ctx
 * @param {string} ns
 * @param {number} need  minimum generation (0: any)
 * @returns {Promise<import('./reads.js').Index | null>}
 */
export async function readCopy(env, ctx, ns, need) {
  const s = settings(env);
  let copy = copies.get(ns);
  if (!copy) {
    copy = { index: null, generation: 0, manifest: null, checkedAt: 0, bytes: 0, lastUsed: 0, known: false, checking: null, loading: null };
    copies.set(ns, copy);
  }
  copy.lastUsed = Date.now();
  try {
    if (!copy.known || Date.now() - copy.checkedAt >= s.revalidateMs) await check(env, ctx, ns, copy);
    if (copy.loading && !copy.index) await copy.loading;
  } finally {
    if (!copy.index && !copy.loading && copies.get(ns) === copy) copies.delete(ns);
  }
  if (copy.generation < need) return null;
  if (!copy.index) throw new ApiError('NOT_FOUND', `namespace "${ns}" does not exist`);
  return copy.index;
}

/**
 * Drops the copy of `ns` if its engine is `index`: after an INTERNAL error
 * (a trap) the engine cannot be trusted, and the next read loads anew.
 *
 * @param {string} ns
 * @param {import('./reads.js').Index} index
 */
export function discardCopy(ns, index) {
  const copy = copies.get(ns);
  if (!copy || copy.index !== index) return;
  console.error(`memdex: the read copy of ${ns} failed with INTERNAL; dropped, the next read reloads it`);
  drop(copy);
  if (!copy.loading) copies.delete(ns);
}

/** Whether `err` (thrown, or a tool result's code) says the engine is broken. */
export const isInternal = (/** @type {any} */ err) => err?.code === 'INTERNAL' || err?._meta?.['memdex/code'] === 'INTERNAL';

/** Generations and sizes of the copies, and the wasm memory, for diagnostics. */
export function cacheInfo() {
  return {
    wasmMemoryBytes: wasmMemoryBytes(),
    loads,
    entries: copies.size,
    namespaces: [...copies].map(([ns, c]) => ({ ns, generation: c.generation, bytes: c.bytes, loaded: c.index !== null, lazy: c.index !== null && 'lazy' in c.index })),
  };
}

/**
 * Reads the manifest; reloads when it changed (single flight per copy).
 *
 * @param {Env} env
 * @param {ExecutionContext} ctx
 * @param {string} ns
 * @param {Copy} copy
 */
function check(env, ctx, ns, copy) {
  copy.checking ??= (async () => {
    try {
      const raw = await env.MEMDEX_KV.get(`${kvPrefix(ns)}${INDEX_NAME}/manifest`, 'arrayBuffer');
      const manifest = raw === null ? null : new Uint8Array(raw);
      copy.checkedAt = Date.now();
      copy.known = true;
      if (same(manifest, copy.manifest)) return;
      if (manifest === null) {
        drop(copy);
        copy.manifest = null;
        copy.generation = 0;
        return;
      }
      if (copy.loading) return; // a load is under way; the next check compares again
      const keepOld = copy.index !== null && total() + copy.bytes <= settings(env).cacheBytes;
      copy.loading = load(env, ns, copy, manifest, keepOld).finally(() => {
        copy.loading = null;
      });
      if (keepOld) ctx.waitUntil(copy.loading.catch((err) => console.error(`memdex: reloading ${ns} failed`, err)));
      else await copy.loading;
    } finally {
      copy.checking = null;
    }
  })();
  return copy.checking;
}

/**
 * @param {Env} env
 * @param {string} ns
 * @param {Copy} copy
 * @param {Uint8Array} manifest
 * @param {boolean} keepOld  serve the old copy until the new one is ready
 */
async function load(env, ns, copy, manifest, keepOld) {
  if (!keepOld) drop(copy);
  // The custom schema (none for a namespace created by a write); the engine has the whole one.
  const text = await env.MEMDEX_KV.get(schemaKey(kvPrefix(ns)), 'text');
  const schema = text === null ? {} : JSON.parse(text);
  const embed = embedOption(env, schema);
  const s = settings(env);
  const storage = kvStorage(env.MEMDEX_KV, { prefix: kvPrefix(ns) });
  // Lazily above `lazyAboveBytes`, unless the namespace embeds (a lazy index has no embedder).
  const kind = embed.embed === undefined ? { lazy: /** @type {const} */ ('auto'), lazyAboveBytes: s.lazyAboveBytes } : embed;
  const index = await Memdex.open({ storage, name: INDEX_NAME, autoCommit: false, cacheBytes: s.pageCacheBytes, ...kind });
  setSchemaOf(index, schema, embed.embed !== undefined);
  loads++;
  drop(copy);
  copy.index = index;
  copy.generation = index.generation;
  copy.manifest = manifest;
  const stats = await index.stats();
  // What it holds, its page cache, and (lazy) the fetched parts it may hold.
  copy.bytes = stats.bytes + (stats.cache?.limit ?? 0) + ('lazy' in stats ? /** @type {import('memdex').LazyIndexStats} */ (stats).lazy.limit : 0);
  evict(s.cacheBytes, s.cacheEntries, copy);
}

/** Frees a copy's index once the tool calls already made on it finished. */
function drop(/** @type {Copy} */ copy) {
  const old = copy.index;
  copy.index = null;
  copy.bytes = 0;
  if (!old) return;
  tools
    .idle(old)
    .then(() => old.free())
    .catch((err) => console.error('memdex: freeing a read copy failed', err)); // a trapped engine may not free
}

function total() {
  let n = 0;
  for (const c of copies.values()) n += c.bytes;
  return n;
}

/**
 * Least recently used copies out until the rest fit `budget` bytes and
 * `entries` copies (`keep` stays, and so do copies being checked or
 * loaded: their load would finish on a copy no longer in the map).
 */
function evict(/** @type {number} */ budget, /** @type {number} */ entries, /** @type {Copy} */ keep) {
  const order = [...copies.entries()].filter(([, c]) => c !== keep && !c.loading && !c.checking).sort((a, b) => a[1].lastUsed - b[1].lastUsed);
  for (const [ns, c] of order) {
    if (total() <= budget && copies.size <= entries) break;
    drop(c);
    copies.delete(ns);
  }
}

/** @param {Uint8Array | null} a @param {Uint8Array | null} b */
function same(a, b) {
  if (!a || !b) return a === b;
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}
