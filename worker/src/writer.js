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
// Memory: objects of this class may share an isolate (128 MiB), so a writer
// without requests for `writerIdleMs` frees its index; the next request
// reopens it from its manifest (one load, ~0.3 s at 100k documents).
import { DurableObject } from 'cloudflare:workers';
import { settings } from './config.js';
import { errorRecord } from './errors.js';
import { engineId, INDEX_NAME, kvPrefix } from './ids.js';
import { Memdex, tools } from './memdex.js';
import { cleanMessage, findDoc, runRead } from './reads.js';
import { wasmMemoryBytes } from './wasm-memory.js';
import { writerStorage } from './writer-storage.js';

/** @typedef {import('./env.js').Env} Env */
/** @typedef {import('./env.js').DurableObjectState} DurableObjectState */
/** @typedef {import('./reads.js').ReadOp} ReadOp */

/**
 * @typedef {{ kind: 'add', docs: Record<string, unknown>[] }
 *   | { kind: 'remove', ids: string[] }
 *   | { kind: 'removeWhere', filter: Record<string, unknown> }
 *   | { kind: 'tool', name: string, args: Record<string, unknown>, maxChars?: number }} WriteOp
 * @typedef {{ keyId: string, maxNamespaces: number }} Grant  who writes, for the namespace quota
 * @typedef {{ ok: true, value: unknown, generation: number } | { ok: false, error: { code: string, message: string, added?: number, limit?: string }, generation?: number }} Outcome
 */

/** Tools that can add memories, and so may create a namespace. */
const CREATING_TOOLS = new Set(['memory_store', 'memory_update']);

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
    /** @type {ReturnType<typeof writerStorage> | null} */
    this.storage = null;
    this.created = false;
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
  }

  /**
   * Applies `op` to namespace `ns` as part of the next group commit.
   *
   * @param {string} ns
   * @param {WriteOp} op
   * @param {Grant} grant
   * @returns {Promise<Outcome>}
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
      await this.#open(ns);
      if (!this.created) {
        const creates = op.kind === 'add' || (op.kind === 'tool' && CREATING_TOOLS.has(op.name));
        if (!creates) return { ok: false, error: { code: 'NOT_FOUND', message: `namespace "${ns}" does not exist` } };
        const registry = this.env.MEMDEX_REGISTRY.get(this.env.MEMDEX_REGISTRY.idFromName('registry'));
        const r = await registry.create(ns, grant.keyId, grant.maxNamespaces);
        if (!r.ok) {
          const message = `this API key has created ${r.count} namespaces, its limit; "${ns}" was not created`;
          return { ok: false, error: { code: 'LIMIT', message, limit: 'maxNamespacesPerKey' } };
        }
        await this.state.storage.put('meta:created', new Date().toISOString());
        this.created = true;
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
   *
   * @param {string} ns
   * @param {ReadOp} op
   * @returns {Promise<Outcome>}
   */
  async read(ns, op) {
    this.#enter();
    try {
      const index = await this.#open(ns);
      await this.flushing;
      if (!this.created) return { ok: false, error: { code: 'NOT_FOUND', message: `namespace "${ns}" does not exist` } };
      const live = this.index ?? index; // a failed commit may have reopened it
      return { ok: true, value: runRead(live, ns, op), generation: live.generation };
    } catch (err) {
      return { ok: false, error: errorRecord(err) };
    } finally {
      this.#leave();
    }
  }

  /**
   * A read-only memory tool call on the writer's index (read-your-writes
   * for MCP clients that pass a minimum generation).
   *
   * @param {string} ns
   * @param {string} name
   * @param {Record<string, unknown>} args
   * @param {number} maxChars
   */
  async readTool(ns, name, args, maxChars) {
    this.#enter();
    try {
      const index = await this.#open(ns);
      await this.flushing;
      const live = this.index ?? index;
      const result = await tools.handleToolCall(live, name, args, { namespace: ns, readOnly: true, maxChars });
      return { ok: true, value: result, generation: live.generation };
    } finally {
      this.#leave();
    }
  }

  /** Counters and memory, for tests and the benchmarks. */
  async info() {
    return {
      generation: this.index?.generation ?? null,
      commits: this.commits,
      batches: this.batches,
      releases: this.releases,
      queued: this.queue.length,
      bytes: this.index?.stats().bytes ?? 0,
      wasmMemoryBytes: wasmMemoryBytes(),
    };
  }

  /** Alarm: delete blobs whose grace period ended; re-publish a manifest KV missed. */
  async alarm() {
    const ns = this.ns ?? /** @type {string | undefined} */ (await this.state.storage.get('meta:ns'));
    if (ns === undefined) return;
    this.storage ??= this.#makeStorage(ns);
    await this.storage.reconcile(INDEX_NAME);
    const next = await this.storage.sweep();
    if (next !== null) await this.state.storage.setAlarm(next);
  }

  /** @param {string} ns */
  #makeStorage(ns) {
    const s = settings(this.env);
    return writerStorage(this.state.storage, this.env.MEMDEX_KV, {
      prefix: kvPrefix(ns),
      graceMs: s.blobGraceMs,
      publishMs: s.publishMs,
      wakeAt: (time) => this.#wakeAt(time),
    });
  }

  /** The alarm at `time` at the latest. @param {number} time */
  #wakeAt(time) {
    const storage = this.state.storage;
    storage
      .getAlarm()
      .then((at) => (at === null || at > time ? storage.setAlarm(time) : undefined))
      .catch((err) => console.error('memdex writer: setting the alarm failed', err));
  }

  /**
   * The open index (opened once; reopened after a failed commit).
   *
   * @param {string} ns
   */
  async #open(ns) {
    if (this.ns !== null && this.ns !== ns) throw new Error(`writer of "${this.ns}" asked to serve "${ns}"`);
    if (this.index) return this.index;
    if (!this.opening) {
      this.opening = (async () => {
        if (this.ns === null) {
          const known = await this.state.storage.get('meta:ns');
          if (known === undefined) await this.state.storage.put('meta:ns', ns);
          else if (known !== ns) throw new Error(`writer of "${known}" asked to serve "${ns}"`);
          this.ns = ns;
        }
        this.storage = this.#makeStorage(ns);
        const manifest = await this.storage.reconcile(INDEX_NAME);
        this.created = manifest !== null || (await this.state.storage.get('meta:created')) !== undefined;
        const index = await Memdex.open({ storage: this.storage, name: INDEX_NAME, autoCommit: false });
        this.index = index;
        return index;
      })().finally(() => {
        this.opening = null;
      });
    }
    return this.opening;
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
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0 || this.ns === null) return;
    const ns = this.ns;
    this.batches++;
    /** @type {Outcome[]} */
    let outcomes;
    try {
      const index = await this.#open(ns);
      outcomes = [];
      for (const { op } of batch) outcomes.push(await this.#apply(index, ns, op));
      if (index.dirty) {
        await index.commit();
        this.commits++;
      }
      const generation = index.generation;
      for (const o of outcomes) o.generation = generation;
    } catch (err) {
      // Nothing of this batch is durable: drop the index (with the batch's
      // uncommitted writes) and reopen from the last durable manifest.
      const error = errorRecord(err);
      console.error(`memdex writer ${ns}: commit failed: ${error.code}: ${error.message}`);
      this.index?.free();
      this.index = null;
      outcomes = batch.map(() => ({ ok: /** @type {const} */ (false), error: { code: error.code, message: `${error.message}; nothing of this request was written, retry` } }));
    }
    batch.forEach((b, i) => b.resolve(outcomes[i]));
  }

  /**
   * @param {import('./memdex.js').Memdex} index
   * @param {string} ns
   * @param {WriteOp} op
   * @returns {Promise<Outcome>}
   */
  async #apply(index, ns, op) {
    try {
      switch (op.kind) {
        case 'add':
          return { ok: true, value: { added: index.addAll(/** @type {any} */ (op.docs)) }, generation: 0 };
        case 'remove': {
          let removed = 0;
          for (const id of op.ids) {
            // The REST/MCP id, or a plain id of this namespace (JS API).
            if (index.remove(engineId(ns, id))) removed++;
            else if (findDoc(index, ns, id) && index.remove(id)) removed++;
          }
          return { ok: true, value: { removed }, generation: 0 };
        }
        case 'removeWhere':
          return { ok: true, value: { removed: index.removeWhere(/** @type {any} */ ({ ...op.filter, namespace: ns })) }, generation: 0 };
        case 'tool': {
          const result = await tools.handleToolCall(index, op.name, op.args, { namespace: ns, commit: false, maxChars: op.maxChars });
          return { ok: true, value: result, generation: 0 };
        }
      }
    } catch (err) {
      const error = errorRecord(err);
      return { ok: false, error: { ...error, message: cleanMessage(ns, error.message) } };
    }
  }
}
