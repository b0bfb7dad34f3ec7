// The explorer's index session: one Memdex index persisted in IndexedDB,
// opened on the main thread because search-as-you-type needs synchronous,
// sub-millisecond reads. Every write goes through `index.update()`, which
// commits under the writer lock and re-applies the write if another tab or
// the import worker committed first, so nothing the page acknowledges is
// lost and no CONFLICT reaches the user. Other tabs hear about commits on a
// BroadcastChannel and refresh.
//
// Facets: memdex filters namespaces, kinds and tags by exact value and has
// no call that lists a keyword field's distinct values, so the page keeps
// the values it has written or seen in localStorage (per index) and checks
// them with `count()` when it opens.
import { Memdex } from '../pkg/index.js';
import { indexedDBStorage } from '../pkg/storage/indexeddb.js';
import { meteredStorage } from './metered.js';
import { BULK_NAMESPACES } from '../synthetic.js';

/** @typedef {import('../pkg/index.js').MemdexDocument} MemdexDocument */
/** @typedef {{ namespaces: Set<string>, kinds: Set<string>, tags: Set<string> }} Facets */

export const DATABASE = 'memdex-explorer';
export const KINDS = ['note', 'decision', 'rule', 'observation', 'code', 'summary'];
const POINTER_KEY = 'memdex-explorer:index'; // name of the current index
/** @param {string} name */
const facetKey = (name) => `memdex-explorer:facets:${name}`;
const CHANNEL = 'memdex-explorer';

export class Store extends EventTarget {
  // Set by open(), which the page awaits before it uses the store.
  index = /** @type {Memdex} */ (/** @type {unknown} */ (undefined));
  name = '';
  raw = indexedDBStorage({ database: DATABASE });
  storage = meteredStorage(this.raw);
  /** @type {Facets} */
  facets = { namespaces: new Set(), kinds: new Set(KINDS), tags: new Set() };
  /** Set while a bulk import or a snapshot swap owns the index: the page does not write then. */
  busy = false;
  #channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(CHANNEL) : null;

  async open() {
    this.name = localStorage.getItem(POINTER_KEY) || 'explorer';
    this.index = await Memdex.open({ name: this.name, storage: this.storage });
    if (this.index.generation === 0) await this.#seed();
    if (!this.#loadFacets()) this.scanFacets();
    this.#pruneFacets();
    this.#channel?.addEventListener('message', ({ data }) => {
      if (data?.type === 'commit' && data.name === this.name) this.refresh();
      if (data?.type === 'switch') location.reload();
    });
    return this;
  }

  // First visit: the sample memories, committed once. Through update() so
  // two tabs opened at once do not both seed (the second reloads and sees
  // the first one's commit).
  async #seed() {
    const r = await fetch(new URL('../memories.jsonl', import.meta.url));
    if (!r.ok) throw new Error(`memories.jsonl: HTTP ${r.status}`);
    const samples = (await r.text())
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l));
    await this.index.update((ix) => {
      if (ix.size === 0) ix.addAll(samples);
    });
    samples.forEach((d) => this.noteDoc(d));
    this.#saveFacets();
  }

  // The import worker commits what it loaded from the commit it started
  // on; a write from this page in between would make that commit CONFLICT.
  #checkIdle() {
    if (this.busy) throw new Error('an import is running; try again when it has finished');
  }

  /**
   * Adds or replaces a memory; resolves once it is durable in IndexedDB.
   * @param {MemdexDocument} doc
   */
  async save(doc) {
    this.#checkIdle();
    await this.index.update((ix) => ix.add(doc));
    this.noteDoc(doc);
    this.#saveFacets();
    this.#committed();
  }

  /**
   * Deletes a memory; resolves to whether it existed, once durable.
   * @param {string} id
   */
  async remove(id) {
    this.#checkIdle();
    const existed = await this.index.update((ix) => ix.remove(id));
    this.#committed();
    return existed;
  }

  /** Drops the generated 100k set (and compacts, so its postings go too). */
  async removeBulk() {
    const n = await this.index.update((ix) => {
      const removed = ix.removeWhere({ namespace: BULK_NAMESPACES });
      if (removed > 0) ix.compact();
      return removed;
    });
    this.#pruneFacets();
    this.#committed();
    return n;
  }

  /** Merges all segments into one and commits the result. */
  async compact() {
    await this.index.update((ix) => ix.compact());
    this.#committed();
  }

  /** Commits pending writes before another writer (the import worker) starts. */
  async settle() {
    if (this.index.dirty) await this.index.commit();
  }

  /** Picks up commits made elsewhere (worker, other tabs); emits `change` if it reloaded. */
  async refresh() {
    const reloaded = await this.index.refresh();
    if (reloaded) this.#changed();
    return reloaded;
  }

  /** After a worker import (whose documents went through noteDoc): reload, tell other tabs. */
  async afterImport() {
    await this.index.refresh();
    this.#saveFacets();
    this.#committed();
  }

  /**
   * Replaces the index with a snapshot: imports it under a new name and
   * commits it, and only then points the page at it and deletes the old
   * index's keys. A snapshot that fails to import leaves everything as it was.
   * @param {Uint8Array} bytes
   */
  async replaceWith(bytes) {
    const name = `explorer-${Date.now().toString(36)}`;
    const imported = await Memdex.import(bytes, { name, storage: this.storage });
    try {
      await imported.commit();
    } catch (err) {
      imported.free();
      throw err;
    }
    const old = this.name;
    this.index.free();
    this.index = imported;
    this.name = name;
    localStorage.setItem(POINTER_KEY, name);
    for (const key of await this.raw.list(`${old}/`)) await this.raw.delete(key);
    this.storage.forget(old);
    localStorage.removeItem(facetKey(old));
    this.facets = { namespaces: new Set(), kinds: new Set(KINDS), tags: new Set() };
    this.scanFacets();
    this.#channel?.postMessage({ type: 'switch' });
    this.#changed();
  }

  /** Deletes the database and reloads: the next visit seeds the samples again. */
  async reset() {
    this.index.free(); // drop, do not commit
    for (const key of Object.keys(localStorage)) if (key.startsWith('memdex-explorer:')) localStorage.removeItem(key);
    await this.storage.list(''); // make sure the connection exists so close() below releases it
    await this.raw.deleteDatabase();
    this.#channel?.postMessage({ type: 'switch' });
    location.reload();
  }

  /**
   * Remembers the facet values of a document.
   * @param {{ namespace?: string, kind?: unknown, tags?: unknown }} doc
   */
  noteDoc(doc) {
    if (doc.namespace) this.facets.namespaces.add(doc.namespace);
    if (typeof doc.kind === 'string' && doc.kind) this.facets.kinds.add(doc.kind);
    if (Array.isArray(doc.tags)) doc.tags.forEach((t) => typeof t === 'string' && t && this.facets.tags.add(t));
    else if (typeof doc.tags === 'string' && doc.tags) this.facets.tags.add(doc.tags);
  }

  /**
   * Learns facet values from a listing of up to 10,000 documents (the
   * engine's page limit), for an index the page did not fill itself (an
   * imported snapshot). The generated set's namespaces are known up front.
   */
  scanFacets() {
    /** @param {boolean | string[]} storedFields */
    const list = (storedFields) => this.index.search('', { filter: {}, limit: 10_000, storedFields }).hits;
    let hits;
    try {
      hits = list(['kind', 'tags']);
    } catch {
      hits = list(true); // a snapshot whose schema stores no kind or tags
    }
    for (const hit of hits) this.noteDoc({ namespace: hit.namespace, ...hit.fields });
    BULK_NAMESPACES.forEach((ns) => this.facets.namespaces.add(ns));
    this.#pruneFacets();
  }

  // Drops values no live document has any more (count() is a bitset walk).
  #pruneFacets() {
    const { namespaces, kinds, tags } = this.facets;
    // count() throws SCHEMA for a field the schema lacks: then no value is live.
    /** @param {import('../pkg/index.js').Filter} filter */
    const live = (filter) => {
      try {
        return this.index.count(filter) > 0;
      } catch {
        return false;
      }
    };
    for (const ns of namespaces) if (!live({ namespace: ns })) namespaces.delete(ns);
    for (const t of tags) if (!live({ tags: t })) tags.delete(t);
    for (const k of kinds) if (!KINDS.includes(k) && !live({ kind: k })) kinds.delete(k);
    this.#saveFacets();
  }

  #loadFacets() {
    try {
      /** @type {{ namespaces: string[], kinds: string[], tags: string[] } | null} */
      const saved = JSON.parse(localStorage.getItem(facetKey(this.name)) ?? 'null');
      if (!saved) return false;
      saved.namespaces.forEach((v) => this.facets.namespaces.add(v));
      saved.kinds.forEach((v) => this.facets.kinds.add(v));
      saved.tags.forEach((v) => this.facets.tags.add(v));
      return true;
    } catch {
      return false;
    }
  }

  #saveFacets() {
    const { namespaces, kinds, tags } = this.facets;
    localStorage.setItem(facetKey(this.name), JSON.stringify({ namespaces: [...namespaces], kinds: [...kinds], tags: [...tags] }));
  }

  #committed() {
    this.#channel?.postMessage({ type: 'commit', name: this.name });
    this.#changed();
  }

  #changed() {
    this.dispatchEvent(new Event('change'));
  }
}
