// The index panel: what the engine and the storage say about the index,
// and how fast the last keystrokes were answered.
import { $, bytes, fullDate, ms, num } from './dom.js';
import { summary } from './latency.js';

export class IndexPanel {
  /** @param {import('./store.js').Store} store */
  constructor(store) {
    this.store = store;
    $('#compact').addEventListener('click', () => this.#compact());
  }

  /**
   * @param {string} name a `data-stat` cell
   * @param {string} text
   * @param {string} [title]
   */
  #set(name, text, title) {
    const el = $(`[data-stat="${name}"]`);
    el.textContent = text;
    if (title !== undefined) el.title = title;
  }

  /** Engine statistics and storage figures; after loads and writes. */
  update() {
    const { index, storage, name } = this.store;
    const s = index.stats();
    this.#set('documents', num(s.documents));
    this.#set('segments', `${num(s.segments)}${s.buffered ? ` + ${num(s.buffered)} buffered docs` : ''}`);
    this.#set('terms', num(s.terms), 'distinct terms summed over segments (an upper bound)');
    this.#set('heap', bytes(s.bytes));
    this.#set('generation', num(s.generation));
    this.#set('pending', num(s.pendingWrites));
    const usage = storage.usage(name);
    if (usage) {
      this.#set('stored', `${bytes(usage.bytes)}${usage.complete ? '' : ' (some blobs not read here yet)'}`, `${num(usage.bytes)} bytes`);
      this.#set('committed', usage.committedAt ? fullDate(usage.committedAt) : '—', usage.committedAt?.toISOString());
    } else {
      this.#set('stored', 'nothing committed');
      this.#set('committed', '—');
    }
    this.#set('index-name', name);
    $('#status').textContent = `${num(s.documents)} memories indexed in your browser by memdex (Rust → WebAssembly), saved in IndexedDB.`;
    this.updateLatency();
    this.#estimate();
  }

  /** Per keystroke: cheap, text only. */
  updateLatency() {
    const l = summary();
    this.#set('keystroke', l.keystrokes ? `${ms(l.lastKeystroke)} (p50 ${ms(l.p50Keystroke)}, p95 ${ms(l.p95Keystroke)}, ${l.keystrokes} keys)` : 'type a query');
    this.#set('search', Number.isFinite(l.lastSearch) ? `${ms(l.lastSearch)} (p95 ${ms(l.p95Search)})` : '—');
  }

  // The origin's whole usage (IndexedDB, the offline cache, ...) as the
  // browser estimates it; Chromium also breaks it down.
  async #estimate() {
    if (!navigator.storage?.estimate) return this.#set('origin', 'not available');
    const e = await navigator.storage.estimate();
    // usageDetails: Chromium only, so not in the DOM typings.
    const idb = /** @type {{ usageDetails?: { indexedDB?: number } }} */ (e).usageDetails?.indexedDB;
    this.#set('origin', `${bytes(e.usage)}${idb !== undefined ? ` (IndexedDB ${bytes(idb)})` : ''} of ${bytes(e.quota)}`);
  }

  async #compact() {
    const button = $('#compact', HTMLButtonElement);
    button.disabled = true;
    try {
      await this.store.compact(); // emits change: the panel updates
    } finally {
      button.disabled = false;
    }
  }
}
