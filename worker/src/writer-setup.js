// @ts-check
// What a namespace's writer (writer.js) reads and builds when it starts
// serving a namespace: its storage adapter, with the alarm that backs up
// manifest publication and blob deletion, its stored custom schema, and the
// index reopened under an extended schema.
import { settings } from './config.js';
import { embedOption } from './embed.js';
import { INDEX_NAME, kvPrefix } from './ids.js';
import { Memdex } from './memdex.js';
import { canonical, checkSchema, schemaKey, setSchemaOf } from './schema.js';
import { faultyStorage } from './test-hooks.js';
import { writerStorage } from './writer-storage.js';

/**
 * The writer's storage adapter for namespace `ns` (with the test hooks'
 * failures when MEMDEX_TEST_HOOKS=1).
 *
 * @param {DurableObjectState} state
 * @param {Env} env
 * @param {string} ns
 * @param {Set<string>} failing  commit steps the test hooks fail next
 */
export function namespaceStorage(state, env, ns, failing) {
  const s = settings(env);
  const storage = writerStorage(state.storage, env.MEMDEX_KV, {
    prefix: kvPrefix(ns),
    graceMs: s.blobGraceMs,
    publishMs: s.publishMs,
    wakeAt: (time) => wakeAt(state.storage, time),
  });
  return s.testHooks ? faultyStorage(storage, failing) : storage;
}

/** The alarm at `time` at the latest. @param {DurableObjectStorage} storage @param {number} time */
function wakeAt(storage, time) {
  storage
    .getAlarm()
    .then((at) => (at === null || at > time ? storage.setAlarm(time) : undefined))
    .catch((err) => console.error('memdex writer: setting the alarm failed', err));
}

/**
 * The custom schema the writer stored, else the one in KV (a namespace
 * adopted from KV), else none.
 *
 * @param {DurableObjectState} state
 * @param {Env} env
 * @param {string} ns
 * @returns {Promise<import('./schema.js').Schema>}
 */
export async function storedSchema(state, env, ns) {
  const stored = await state.storage.get('meta:schema');
  if (stored !== undefined) return /** @type {import('./schema.js').Schema} */ (stored);
  const text = await env.MEMDEX_KV.get(schemaKey(kvPrefix(ns)), 'text');
  return text === null ? {} : JSON.parse(text);
}

/**
 * The index of namespace `ns` reopened with its custom schema `current`
 * extended by `wanted` (a create request's schema: the fields it names are
 * added or changed, the others kept, as `Memdex.open({ schema })` upgrades
 * a package index in place). The engine refuses a change it cannot make in
 * place (SCHEMA with `data.change`; nothing stored). The extended schema is
 * stored (storeSchema) before the index is used, so a writer that stops
 * before the next commit redoes the upgrade when it reopens (#open passes
 * the stored schema); that commit stores the upgraded manifest, and a
 * commit that fails puts the old schema back (writer.js). Null when
 * `wanted` changes nothing.
 *
 * @param {DurableObjectState} state
 * @param {Env} env
 * @param {string} ns
 * @param {ReturnType<typeof namespaceStorage> | null} storage the writer's (#open made it)
 * @param {import('./schema.js').Schema} current
 * @param {import('./schema.js').Schema} wanted
 */
export async function upgradeSchema(state, env, ns, storage, current, wanted) {
  const schema = checkSchema({ ...current, ...wanted }); // the field cap holds for the sum too
  if (canonical(schema) === canonical(current)) return null;
  if (storage === null) throw new Error(`the writer of "${ns}" upgraded its schema before opening its index`);
  const embed = embedOption(env, schema);
  const cacheBytes = settings(env).pageCacheBytes;
  const index = await Memdex.open({ storage, name: INDEX_NAME, autoCommit: false, cacheBytes, schema: /** @type {import('memdex').Schema} */ (schema), ...embed });
  try {
    await storeSchema(state, env, ns, schema);
  } catch (err) {
    index.free();
    await storeSchema(state, env, ns, current).catch((e) => console.error('memdex writer: restoring the schema failed', e));
    throw err;
  }
  setSchemaOf(index, schema, embed.embed !== undefined);
  return { index, schema };
}

/**
 * Stores namespace `ns`'s custom schema: the writer's copy (what #open
 * reopens with), then KV's for the read copies.
 *
 * @param {DurableObjectState} state
 * @param {Env} env
 * @param {string} ns
 * @param {import('./schema.js').Schema} schema
 */
export async function storeSchema(state, env, ns, schema) {
  await state.storage.put('meta:schema', schema);
  const key = schemaKey(kvPrefix(ns));
  await (Object.keys(schema).length ? env.MEMDEX_KV.put(key, JSON.stringify(schema)) : env.MEMDEX_KV.delete(key));
}
