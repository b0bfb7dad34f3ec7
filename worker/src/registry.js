// @ts-check
// The namespace registry: one Durable Object for the whole service that
// knows which namespaces exist and how many each key created. Only the
// first write to a namespace (its creation) and GET /v1/namespaces reach
// it, never searches, so one instance is not a bottleneck. Being a single
// object makes the per-key count exact under concurrent creations.
//
// Storage keys: `ns:<name>` -> { createdAt, createdBy }, `count:<key id>` -> n.

import { DurableObject } from 'cloudflare:workers';


// Extending DurableObject is what makes the methods callable over RPC.
export class Registry extends DurableObject {
  /** @param {DurableObjectState} state @param {Env} env */
  constructor(state, env) {
    super(state, env);
    this.storage = state.storage;
  }

  /**
   * Registers namespace `ns` as created by key `keyId`, unless that key
   * already created `max` namespaces. An existing namespace is fine
   * (another key with access may have created it) and counts for nobody.
   *
   * @param {string} ns
   * @param {string} keyId
   * @param {number} max
   * @returns {Promise<{ ok: true, created: boolean } | { ok: false, count: number }>}
   */
  async create(ns, keyId, max) {
    return this.storage.transaction(async (txn) => {
      if ((await txn.get(`ns:${ns}`)) !== undefined) return { ok: true, created: false };
      const count = /** @type {number} */ ((await txn.get(`count:${keyId}`)) ?? 0);
      if (count >= max) return { ok: false, count };
      await txn.put({ [`ns:${ns}`]: { createdAt: new Date().toISOString(), createdBy: keyId }, [`count:${keyId}`]: count + 1 });
      return { ok: true, created: true };
    });
  }

  /** @param {string} ns */
  async exists(ns) {
    return (await this.storage.get(`ns:${ns}`)) !== undefined;
  }

  /**
   * Every namespace (starting with `prefix`, if given), sorted by name,
   * with when it was created.
   *
   * @param {string} [prefix]
   * @returns {Promise<{ name: string, createdAt: string }[]>}
   */
  async list(prefix = '') {
    const out = [];
    for (const [k, v] of await this.storage.list({ prefix: `ns:${prefix}` })) {
      out.push({ name: k.slice(3), createdAt: /** @type {any} */ (v).createdAt });
    }
    return out;
  }
}
