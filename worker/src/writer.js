// @ts-check
// NamespaceWriter: the Durable Object of one namespace, its single writer.
//
// It holds the namespace's index open and commits through Memdex.commit()
// with writerStorage (blobs to KV, manifest swapped in DO storage, then
// published to KV). Cloudflare runs at most one instance per namespace, so
// the manifest swap never races another writer.
//
// Group commit: a write is queued, not applied. The first write of a batch
// waits `groupCommitMs` (<= 50 ms) for others; then the batch is applied
// in arrival order and committed once, and every write of it answers with
// the new generation only after that commit is durable. Writes arriving
// during a commit form the next batch. Queuing (rather than applying at
// once) means a failed commit can be undone exactly: the index is dropped
// and reopened from the last durable manifest, and only that batch's
// writers get the error; nobody was told their write succeeded.
//
// Reads forwarded here (read-your-writes) wait for the commit in flight,
// so they never see writes that might still fail.
//
// Only a write that may create the namespace, accepted by the registry (the
// key's quota), stores state here; else NOT_FOUND. A swap that stored but
// failed is judged by the reopened state; INTERNAL (a trap) fails the batch
// and drops the engine. A create with more fields upgrades the schema in a
// batch of its own (writer-setup.js). Idle, it frees its index; full, it refuses growth.
import { DurableObject } from 'cloudflare:workers';
import { settings } from './config.js';
import { errorRecord } from './errors.js';
import { INDEX_NAME, kvPrefix } from './ids.js';
import { Memdex, tools } from './memdex.js';
import { runRead } from './reads.js';
import { applyWrite, commitInSlices, mayCreate, namespaceFull } from './writes.js';
import { schemaKey, setSchemaOf, toolFields } from './schema.js';
import { embedOption } from './embed.js';
import { isInternal } from './reader.js';
import { writerHook } from './test-hooks.js';
import { wasmMemoryBytes } from './wasm-memory.js';
import { namespaceStorage, storeSchema, storedSchema, upgradeSchema } from './writer-setup.js';

/** @typedef {import('./reads.js').ReadOp} ReadOp */

/** @typedef {import('./writes.js').WriteOp} WriteOp @typedef {import('./writes.js').Outcome} Outcome @typedef {import('./writes.js').Grant} Grant */

export class NamespaceWriter extends DurableObject {
  /** @param {DurableObjectState} state @param {Env} env */
  constructor(state, env) {
    super(state, env);
    this.state = state;
    this.env = env;
    /** @type {string | null} */
    this.ns = null;
    /** @type {import('./memdex.js').Memdex | null} */
    this.index = null;
    /** @type {Promise<import('./memdex.js').Memdex> | null} */
    this.opening = null;
    /** @type {ReturnType<typeof namespaceStorage> | null} */
    this.storage = null;
    this.created = false;
    /** @type {import('./schema.js').Schema | null} the namespace's custom schema (null: not read yet) */
    this.schema = null;
    /** @type {{ op: WriteOp, resolve: (o: Outcome) => void, at: number }[]} */
    this.queue = [];
    /** @type {Promise<void> | null} */
    this.flushing = null;
    /** @type {ReturnType<typeof setTimeout> | null} */
    this.timer = null;
    this.commits = 0;
    this.batches = 0;
    this.releases = 0;
    this.active = 0; // requests in progress
    /** @type {ReturnType<typeof setTimeout> | null} */
    this.idleTimer = null;
    /** @type {Set<string>} commit steps the test hooks fail next */
    this.failing = new Set();
  }

  /**
   * Applies `op` to namespace `ns` as part of the next group commit.
   * @param {string} ns @param {WriteOp} op @param {Grant} grant @returns {Promise<Outcome>}
   */
  async write(ns, op, grant) {
    this.#enter();
    try {
      return await this.#write(ns, op, grant);
    } finally {
      this.#leave();
    }
  }

  /** @param {string} ns @param {WriteOp} op @param {Grant} grant @returns {Promise<Outcome>} */
  async #write(ns, op, grant) {
    try {
      const exists = await this.#exists(ns);
      if (exists) await this.#open(ns);
      if (!exists || !this.created) {
        if (!mayCreate(op)) return notFound(ns);
        const registry = this.env.MEMDEX_REGISTRY.get(this.env.MEMDEX_REGISTRY.idFromName('registry'));
        const r = await registry.create(ns, grant.keyId, grant.maxNamespaces);
        if (!r.ok) {
          const message = `this API key has created ${r.count} namespaces, its limit; "${ns}" was not created`;
          return { ok: false, error: { code: 'LIMIT', message, limit: 'maxNamespacesPerKey', status: 403 } };
        }
        if (!this.created) {
          // The first state this object stores (the flush opens the index
          // with the schema and commits it). The schema goes to KV first,
          // where read copies find it before the first manifest.
          const schema = op.kind === 'create' ? op.schema : {};
          this.ns = ns;
          this.created = true;
          this.schema = schema;
          if (op.kind === 'create') op = { ...op, creating: true };
          if (Object.keys(schema).length) await this.env.MEMDEX_KV.put(schemaKey(kvPrefix(ns)), JSON.stringify(schema));
          await this.state.storage.put({ 'meta:ns': ns, 'meta:created': new Date().toISOString(), 'meta:schema': schema });
        }
      }
    } catch (err) {
      return { ok: false, error: errorRecord(err) };
    }
    return new Promise((resolve) => {
      this.queue.push({ op, resolve, at: Date.now() });
      this.#schedule();
    });
  }

  /**
   * A read served by the writer's index, after the commit in flight.
   * @param {string} ns @param {ReadOp} op @returns {Promise<Outcome>}
   */
  async read(ns, op) {
    this.#enter();
    /** @type {import('./memdex.js').Memdex | null} */
    let live = null;
    try {
      if (!(await this.#exists(ns))) return notFound(ns);
      await this.#open(ns);
      await this.flushing;
      if (!this.created) return notFound(ns);
      live = await this.#open(ns); // a failed commit may have reopened it
      return { ok: true, value: await runRead(live, ns, op), generation: live.generation };
    } catch (err) {
      if (live && isInternal(err)) this.#discard(live);
      return { ok: false, error: errorRecord(err) };
    } finally {
      this.#leave();
    }
  }

  /**
   * A read-only memory tool call on the writer's index (read-your-writes
   * for MCP clients that pass a minimum generation).
   * @param {string} ns @param {string} name @param {Record<string, unknown>} args @param {number} maxChars
   * @returns {Promise<Outcome>}
   */
  async readTool(ns, name, args, maxChars) {
    this.#enter();
    try {
      if (!(await this.#exists(ns))) return notFound(ns);
      await this.#open(ns);
      await this.flushing;
      if (!this.created) return notFound(ns);
      const live = await this.#open(ns);
      const options = { namespace: ns, readOnly: true, maxChars, ...toolFields(live) };
      const result = await tools.handleToolCall(live, name, args, options);
      if (isInternal(result)) this.#discard(live);
      return { ok: true, value: result, generation: live.generation };
    } catch (err) {
      return { ok: false, error: errorRecord(err) };
    } finally {
      this.#leave();
    }
  }

  /** Counters and memory, for tests and the benchmarks. */
  async info() {
    const { commits, batches, releases } = this;
    const storedKeys = (await this.state.storage.list()).size;
    return { generation: this.index?.generation ?? null, commits, batches, releases, queued: this.queue.length, bytes: this.index?.stats().bytes ?? 0, wasmMemoryBytes: wasmMemoryBytes(), storedKeys };
  }

  /** Test-only fault injection; nothing unless MEMDEX_TEST_HOOKS=1 (test-hooks.js). @param {string} action */
  async testHook(action) {
    return writerHook(settings(this.env).testHooks, action, this.failing);
  }

  /** Alarm: delete blobs whose grace period ended; re-publish a manifest KV missed. */
  async alarm() {
    const ns = this.ns ?? /** @type {string | undefined} */ (await this.state.storage.get('meta:ns'));
    if (ns === undefined) return;
    this.storage ??= namespaceStorage(this.state, this.env, ns, this.failing);
    await this.storage.reconcile(INDEX_NAME);
    const next = await this.storage.sweep();
    if (next !== null) await this.state.storage.setAlarm(next);
  }

  /**
   * Whether this object holds namespace `ns` (learning its name from
   * storage once). Stores nothing, except for a namespace KV has and this
   * object's storage lost: opening it adopts KV's manifest.
   * @param {string} ns
   */
  async #exists(ns) {
    if (this.ns === null) {
      const known = await this.state.storage.get('meta:ns');
      if (known === undefined) {
        const published = await this.env.MEMDEX_KV.get(`${kvPrefix(ns)}${INDEX_NAME}/manifest`, 'arrayBuffer');
        if (published === null) return false;
        await this.state.storage.put('meta:ns', ns);
      } else if (known !== ns) throw new Error(`writer of "${known}" asked to serve "${ns}"`);
      this.ns = ns;
    }
    if (this.ns !== ns) throw new Error(`writer of "${this.ns}" asked to serve "${ns}"`);
    return true;
  }

  /**
   * The open index of namespace `ns`, which this object holds (#exists, or
   * just created): opened once; reopened after a failed commit.
   * @param {string} ns
   */
  async #open(ns) {
    if (this.ns !== ns) throw new Error(`writer of "${this.ns}" asked to serve "${ns}"`);
    if (this.index) return this.index;
    if (!this.opening) {
      this.opening = (async () => {
        this.storage = namespaceStorage(this.state, this.env, ns, this.failing);
        const manifest = await this.storage.reconcile(INDEX_NAME);
        this.created = manifest !== null || (await this.state.storage.get('meta:created')) !== undefined;
        this.schema ??= await storedSchema(this.state, this.env, ns);
        // A new index is created with the stored schema; a stored one is
        // opened with it too, which upgrades it if an upgrade stored its
        // schema but stopped before its commit (writer-setup.js).
        const schema = Object.keys(this.schema).length ? { schema: /** @type {import('memdex').Schema} */ (this.schema) } : {};
        const embed = embedOption(this.env, this.schema);
        const cacheBytes = settings(this.env).pageCacheBytes;
        const index = await Memdex.open({ storage: this.storage, name: INDEX_NAME, autoCommit: false, cacheBytes, ...schema, ...embed });
        setSchemaOf(index, this.schema, embed.embed !== undefined);
        this.index = index;
        return index;
      })().finally(() => {
        this.opening = null;
      });
    }
    return this.opening;
  }

  /**
   * Stops using `index` (a failed commit, or INTERNAL: a broken engine);
   * the next request reopens from storage. Freed once the commit and tool
   * calls using it are done.
   * @param {import('./memdex.js').Memdex} index
   */
  #discard(index) {
    if (this.index === index) this.index = null;
    Promise.resolve(this.flushing)
      .catch(() => {})
      .then(() => tools.idle(index))
      .then(() => index.free())
      .catch((err) => console.error('memdex writer: freeing a dropped index failed', err));
  }

  #enter() {
    this.active++;
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  #leave() {
    this.active--;
    const idleMs = settings(this.env).writerIdleMs;
    if (idleMs === 0 || this.active > 0 || this.idleTimer !== null) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (this.active > 0 || this.queue.length > 0 || this.flushing || this.opening || !this.index) return;
      this.index.free();
      this.index = null;
      this.releases++;
    }, idleMs);
  }

  #schedule() {
    if (this.timer !== null || this.flushing || this.queue.length === 0) return;
    const wait = Math.max(0, this.queue[0].at + settings(this.env).groupCommitMs - Date.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      this.flushing = this.#flush().finally(() => {
        this.flushing = null;
        this.#schedule();
      });
    }, wait);
  }

  async #flush() {
    // A schema upgrade is a batch of its own: the writes before it commit
    // under the old schema, and a failed commit undoes the upgrade alone.
    const alone = (/** @type {{ op: WriteOp }} */ q) => q.op.kind === 'create' && !q.op.creating;
    const cut = this.queue.length > 1 && alone(this.queue[0]) ? 1 : this.queue.findIndex((q, i) => i > 0 && alone(q));
    const batch = cut > 0 ? this.queue.slice(0, cut) : this.queue;
    this.queue = cut > 0 ? this.queue.slice(cut) : [];
    if (batch.length === 0 || this.ns === null) return;
    const ns = this.ns;
    this.batches++;
    /** @type {Outcome[]} */
    const outcomes = [];
    /** @type {import('./memdex.js').Memdex | null} */
    let index = null;
    let before = -1;
    let upgradedFrom = /** @type {import('./schema.js').Schema | null} the schema an upgrade here replaced */ (null);
    try {
      let live = await this.#open(ns);
      index = live;
      before = live.generation;
      let created = false; // a new namespace, or a new schema: committed even without documents
      const full = namespaceFull(ns, live.stats().bytes, settings(this.env).limits.maxNamespaceBytes); // growth refused: this writer must load it again
      for (const { op } of batch) {
        if (op.kind === 'create' && !op.creating) {
          const upgraded = await this.#upgrade(ns, live, op.schema);
          if ('error' in upgraded) {
            outcomes.push(upgraded.error);
            continue;
          }
          if (upgraded.index !== live) [created, upgradedFrom] = [true, upgraded.from ?? null];
          live = index = upgraded.index;
        }
        const o = await applyWrite(live, ns, op, full);
        if (op.kind === 'create' && o.ok && /** @type {{ created: boolean }} */ (o.value).created) created = true;
        // A trapped engine cannot go on, nor be committed from.
        if (o.ok ? isInternal(o.value) : o.error.code === 'INTERNAL') {
          throw Object.assign(new Error(`the engine failed (${o.ok ? 'tool call' : o.error.message})`), { code: 'INTERNAL' });
        }
        outcomes.push(o);
      }
      if (live.dirty || created) {
        await commitInSlices(live);
        this.commits++;
      }
      const generation = live.generation;
      for (const o of outcomes) o.generation = generation;
    } catch (err) {
      // Drop the index (and the batch's writes); the reopened manifest says
      // whether the commit stored after all (a swap that failed after storing).
      const error = errorRecord(err);
      console.error(`memdex writer ${ns}: commit failed: ${error.code}: ${error.message}`);
      if (index) this.#discard(index);
      const upgradedTo = this.schema; // the old one until the reopened manifest says the upgrade stored
      if (upgradedFrom) await this.#setSchema(ns, upgradedFrom);
      const durable = outcomes.length === batch.length && before >= 0 ? await this.#generationAfter(ns, before) : null;
      // The upgrade stored after all: the index reopened under the old schema is dropped.
      if (durable !== null && upgradedFrom && upgradedTo) await this.#setSchema(ns, upgradedTo, true);
      if (durable !== null) {
        this.commits++;
        for (const o of outcomes) o.generation = durable;
      } else {
        const failed = { ok: /** @type {const} */ (false), error: { code: error.code, message: `${error.message}; nothing of this request was written, retry` } };
        outcomes.splice(0, outcomes.length, ...batch.map(() => failed));
      }
    }
    batch.forEach((b, i) => b.resolve(outcomes[i]));
  }

  /**
   * `index` under its schema extended by `wanted` (a batch's first op: nothing uncommitted), or the refusal.
   * @param {string} ns @param {import('./memdex.js').Memdex} index @param {import('./schema.js').Schema} wanted
   * @returns {Promise<{ index: import('./memdex.js').Memdex, from?: import('./schema.js').Schema } | { error: Outcome }>}
   */
  async #upgrade(ns, index, wanted) {
    const up = await upgradeSchema(this.state, this.env, ns, this.storage, this.schema ?? {}, wanted).catch((err) => ({ error: errorRecord(err) }));
    if (up === null || 'error' in up) return up === null ? { index } : { error: { ok: false, error: up.error } };
    const from = this.schema ?? {};
    [this.schema, this.index] = [up.schema, up.index];
    this.#discard(index);
    return { index: up.index, from };
  }

  /** Stores `schema` as the namespace's (a failure is logged); `reopen`: drop the open index. @param {string} ns @param {import('./schema.js').Schema} schema @param {boolean} [reopen] */
  #setSchema(ns, schema, reopen = false) {
    this.schema = schema;
    if (reopen && this.index) this.#discard(this.index);
    return storeSchema(this.state, this.env, ns, schema).catch((err) => console.error(`memdex writer ${ns}: storing the schema failed`, err));
  }

  /**
   * The generation of the reopened index if a commit since `before`
   * stored, else null (also when reopening fails: then nothing is known
   * to be durable, and the error stands). @param {string} ns @param {number} before
   */
  async #generationAfter(ns, before) {
    try {
      const fresh = await this.#open(ns);
      return fresh.generation > before ? fresh.generation : null;
    } catch (err) {
      console.error(`memdex writer ${ns}: reopening after a failed commit failed`, err);
      return null;
    }
  }
}

/** @param {string} ns @returns {Outcome} */
const notFound = (ns) => ({ ok: false, error: { code: 'NOT_FOUND', message: `namespace "${ns}" does not exist` } });
