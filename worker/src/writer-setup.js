// @ts-check
// What a namespace's writer (writer.js) reads and builds when it starts
// serving a namespace: its storage adapter, with the alarm that backs up
// manifest publication and blob deletion, and its stored custom schema.
import { settings } from './config.js';
import { kvPrefix } from './ids.js';
import { schemaKey } from './schema.js';
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
