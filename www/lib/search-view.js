// The search column: reads the controls, runs one synchronous search per
// keystroke, renders the hits, and says how many matched and which mode
// answered. A ranked search skips documents that cannot reach the top 20,
// so its `total` may be a lower bound; the exact count is a second, sorted
// search run when the page is idle after the results are painted: results
// never wait for it.
import { MemdexError } from '../pkg/index.js';
import { $, $$, errorText, h, ms, num } from './dom.js';
import { backOff, buildRequest, PAGE } from './query.js';
import { recordKeystroke, recordSearch } from './latency.js';
import { renderHit } from './results.js';

/** @typedef {import('./query.js').SearchState} SearchState */
/** @typedef {import('./query.js').SearchRequest} SearchRequest */
/** @typedef {import('./query.js').SearchContext} SearchContext */
/** @typedef {import('../pkg/index.js').Hit} Hit */
/** @typedef {import('../pkg/index.js').SearchResults} SearchResults */

const MAX_WINDOW = 10_000; // the engine's offset + limit ceiling
/** @param {() => void} fn */
const idle = (fn) => ('requestIdleCallback' in window ? requestIdleCallback(fn, { timeout: 400 }) : setTimeout(fn, 30));
const MODE_TEXT = { or: 'any term (OR)', and: 'all terms (AND)' };
/** @typedef {'filters' | 'and' | 'empty' | 'nothing'} HintKey */

export class SearchView {
  seq = 0;
  /** @type {Omit<SearchContext, 'rank'> | null} what the visible results came from, for the detail view */
  last = null;
  /** @type {Map<string, { hit: Hit, rank: number }>} */
  #hits = new Map();
  #offset = 0;
  #listSeq = 0; // the search whose first page heads the current list ("Show more" appends to it)
  /** @type {string | null} its number of matches (text), once counted */
  #count = null;

  /**
   * @param {import('./store.js').Store} store
   * @param {{ onOpen: (hit: Hit, context: SearchContext) => void, onMeasured: () => void }} hooks
   */
  constructor(store, hooks) {
    this.store = store;
    this.hooks = hooks;
    this.q = $('#q', HTMLInputElement);
    this.form = $('#search-form', HTMLFormElement);
    this.results = $('#results');
    this.more = $('#more');
    this.q.addEventListener('input', (e) => this.run({ eventTime: e.timeStamp }));
    this.form.addEventListener('change', (e) => {
      if (e.target !== this.q) this.run();
    });
    this.form.addEventListener('submit', (e) => {
      e.preventDefault();
      this.run();
    });
    this.form.addEventListener('reset', () => setTimeout(() => this.run()));
    this.more.addEventListener('click', () => this.run({ append: true }));
    this.results.addEventListener('click', (e) => {
      if (!(e.target instanceof Element)) return;
      const li = e.target.closest('li.hit');
      if (li instanceof HTMLElement && e.target.closest('button.open')) this.#open(li.dataset.id ?? '');
    });
    this.#wireKeys();
  }

  /** @returns {SearchState} */
  state() {
    const f = new FormData(this.form);
    const mode = f.get('mode');
    return {
      q: this.q.value,
      mode: mode === 'and' || mode === 'fallback' ? mode : 'or',
      namespace: String(f.get('namespace') ?? ''),
      kind: String(f.get('kind') ?? ''),
      tags: String(f.get('tags') ?? ''),
      from: String(f.get('from') ?? ''),
      to: String(f.get('to') ?? ''),
      sort: String(f.get('sort') ?? 'relevance'),
    };
  }

  /**
   * Runs the search; `eventTime` marks a keystroke to measure; `append` loads the next page.
   * @param {{ eventTime?: number, append?: boolean }} [how]
   */
  run({ eventTime, append = false } = {}) {
    const index = this.store.index;
    const seq = ++this.seq;
    const state = this.state();
    this.#offset = append ? this.#offset + PAGE : 0;
    let req = buildRequest(state, { namespaces: this.store.facets.namespaces }, this.#offset);
    // The next page of a backed-off query continues that query.
    if (append && this.last?.req.completion) req = { ...req, query: this.last.req.query, completion: this.last.req.completion };
    /** @type {SearchResults} */
    let res;
    const t0 = performance.now();
    try {
      res = index.search(req.query, req.options);
      if (res.hits.length === 0 && !append) {
        // Whether a prefix search for `p` finds anything (suggest completes
        // words as written, which may start with `p` when no stem does).
        const retry = backOff(req.prefixed, (p) => index.search(`${p}*`, { limit: 1, storedFields: false }).hits.length > 0);
        if (retry) {
          const again = index.search(retry.query, req.options);
          if (again.hits.length) [req, res] = [{ ...req, ...retry }, again];
        }
      }
    } catch (err) {
      this.#fail(err);
      return;
    }
    const t1 = performance.now();
    recordSearch(t0, t1, { query: req.query });
    if (!append) {
      this.#hits.clear();
      this.results.replaceChildren();
      this.#listSeq = seq;
      this.#count = null;
    }
    const scored = !req.listing;
    const items = res.hits.map((hit, i) => {
      const rank = this.#offset + i + 1;
      this.#hits.set(hit.id, { hit, rank });
      return renderHit(hit, rank, scored);
    });
    this.results.append(...items);
    // A ranked search's `total` may be a lower bound: the page counts (#countLater).
    if (!req.listing && !req.sorted) res = { ...res, total: undefined };
    this.last = { state, req, mode: res.mode, total: res.total };
    this.#summarize(req, res, t1 - t0, state);
    const shown = this.#offset + res.hits.length;
    this.more.hidden = res.hits.length < PAGE || (res.total !== undefined && shown >= res.total) || shown + PAGE > MAX_WINDOW;
    if (!append && res.hits.length === 0) this.#hint(req, state);
    else if (!append) this.#showHint(null);
    if (!req.sorted && res.hits.length > 0 && !append) this.#countLater(seq, req);
    document.body.dataset.searched = String(seq);
    if (eventTime !== undefined) recordKeystroke(eventTime, { query: req.query, hits: res.hits.length }, () => this.hooks.onMeasured());
    else this.hooks.onMeasured();
  }

  /**
   * @param {SearchRequest} req
   * @param {SearchResults} res
   * @param {number} took ms
   * @param {SearchState} state
   */
  #summarize(req, res, took, state) {
    /** @type {(string | HTMLElement)[]} */
    const parts = [];
    const n = res.hits.length + this.#offset;
    if (req.listing) {
      const total = res.total ?? n;
      const order = req.options.sort?.order === 'asc' ? 'oldest' : 'newest';
      parts.push(`${num(total)} memor${total === 1 ? 'y' : 'ies'}, ${order} first`);
    } else if (res.total !== undefined) {
      parts.push(`${num(res.total)} result${res.total === 1 ? '' : 's'}`);
    } else if (res.hits.length === 0) {
      parts.push('0 results');
    } else {
      const count = this.#count ?? '…';
      parts.push(h('span', {}, `top ${num(n)} of `, h('span', { id: 'count' }, count), ' results'));
    }
    if (!req.listing) {
      const answered = MODE_TEXT[res.mode];
      if (state.mode !== 'fallback') parts.push(answered);
      else if (res.mode === 'and') parts.push(`fallback: ${answered} answered`);
      else parts.push(`fallback: no memory has all terms, ${answered} answered`);
      if (req.sorted) parts.push(req.options.sort?.order === 'asc' ? 'oldest first' : 'newest first');
    }
    parts.push(h('span', { class: 'took' }, ms(took)));
    // Every query's cost is bounded; a partial answer says which budget ran out.
    if (res.limited?.length) parts.push(`partial answer: the query reached its cost budget (${res.limited.join(', ')})`);
    if (req.completion) parts.push(`no index term starts with “${req.completion.typed}”: completed as ${req.completion.as}…`);
    parts.push(...req.notes);
    const summary = $('#summary');
    summary.replaceChildren(...parts.flatMap((p, i) => (i ? [' · ', p] : [p])));
    summary.dataset.mode = res.mode;
  }

  // The exact number of matches: a sorted search visits every match, and
  // with limit 0 and no stored fields it only counts.
  /**
   * @param {number} seq
   * @param {SearchRequest} req
   */
  #countLater(seq, req) {
    idle(() => {
      if (seq !== this.#listSeq) return; // a newer search replaced these results
      const el = $$('#count')[0];
      if (!el) return;
      try {
        const { total, limited } = this.store.index.search(req.query, {
          mode: req.options.mode,
          filter: req.options.filter,
          fuzzy: req.options.fuzzy,
          limit: 0,
          sort: { field: 'timestamp' },
          storedFields: false,
        });
        const n = total ?? 0; // a sorted search always counts
        this.#count = limited?.length ? `${num(n)}+` : num(n); // a partial count is a lower bound
        el.textContent = this.#count;
        document.body.dataset.counted = String(seq);
      } catch {
        el.textContent = '?';
      }
    });
  }

  // Why nothing matched, with the one action that would help. The same
  // hint is not rebuilt: a search re-run by the `change` event of the field
  // the user is leaving must not replace the button being clicked.
  /**
   * @param {SearchRequest} req
   * @param {SearchState} state
   */
  #hint(req, state) {
    const index = this.store.index;
    /**
     * @param {string} q
     * @param {import('../pkg/index.js').SearchOptions} opts
     */
    const any = (q, opts) => index.search(q, { limit: 1, storedFields: false, fuzzy: req.options.fuzzy, ...opts }).hits.length > 0;
    const filtered = Object.keys(req.options.filter).length > 0;
    /** @type {HintKey} */
    let key;
    if (filtered && any(req.query, { mode: req.options.mode, sort: req.options.sort ?? undefined })) key = 'filters';
    else if (state.mode === 'and' && any(req.query, { mode: 'or', filter: req.options.filter })) key = 'and';
    else key = req.listing ? 'empty' : 'nothing';
    this.#showHint(key);
  }

  /** @param {HintKey | null} key */
  #showHint(key) {
    const hint = $('#hint');
    if (hint.dataset.key === (key ?? '')) return;
    hint.dataset.key = key ?? '';
    /**
     * @param {string} label
     * @param {() => void} fn
     */
    const button = (label, fn) => h('button', { type: 'button', class: 'link', onclick: fn }, label);
    const content = {
      filters: () => ['Your filters hide every match. ', button('Clear the filters', () => this.#clearFilters())],
      and: () => ['No memory has all of these terms. ', button('Match any term', () => this.#setMode('or'))],
      empty: () => ['No memories yet: add one, or import some.'],
      nothing: () => [
        'No memory contains these words. memdex matches words, their stems, the words that start with the word ' +
          'being typed, and words a typo away (one letter for words of 4 to 7 letters, two from 8).',
      ],
    };
    hint.replaceChildren(...(key ? content[key]() : []));
  }

  #clearFilters() {
    for (const name of ['namespace', 'tags', 'from', 'to']) $(`#search-form [name=${name}]`, HTMLInputElement).value = '';
    $('#search-form [name=kind]', HTMLSelectElement).value = '';
    this.run();
    this.q.focus();
  }

  /** @param {'or' | 'and' | 'fallback'} mode */
  #setMode(mode) {
    $(`input[name=mode][value=${mode}]`, HTMLInputElement).checked = true;
    this.run();
    this.q.focus();
  }

  /** @param {unknown} err */
  #fail(err) {
    this.results.replaceChildren();
    this.#showHint(null);
    $('#summary').textContent = err instanceof MemdexError ? errorText(err) : `Search failed: ${errorText(err)}`;
    this.more.hidden = true;
  }

  /** @param {string} id */
  #open(id) {
    const entry = this.#hits.get(id);
    if (entry && this.last) this.hooks.onOpen(entry.hit, { ...this.last, rank: entry.rank });
  }

  // Arrow keys: from the search box to the results and between them.
  #wireKeys() {
    const buttons = () => $$('#results button.open');
    this.q.addEventListener('keydown', (e) => {
      if (e.key === 'ArrowDown' && buttons().length) {
        e.preventDefault();
        buttons()[0].focus();
      }
    });
    this.results.addEventListener('keydown', (e) => {
      if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
      const list = buttons();
      const i = list.findIndex((b) => b === document.activeElement);
      if (i < 0) return;
      e.preventDefault();
      if (e.key === 'ArrowUp' && i === 0) this.q.focus();
      else list[Math.max(0, Math.min(list.length - 1, i + (e.key === 'ArrowDown' ? 1 : -1)))].focus();
    });
  }
}
