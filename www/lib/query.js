// From the search controls to one `index.search(query, options)` call.
//
// Search as you type: the last word, while it is being typed (no space
// after it yet), becomes a prefix term `word*`, so "dep" already finds
// "deploy". The engine stems a prefix term before expanding it
// ("deploying*" expands "deploy"), which leaves a gap mid-word: "deployi"
// stems to itself and no index term starts with it. Only when the prefix
// query finds nothing does the page back off, up to three letters, to the
// longest prefix some index term starts with, and it says so in the summary.
//
// Typos: every word also matches the index's words one edit away (words of
// 4 to 7 letters) or two (8 and more), at half or a quarter of the weight
// (`fuzzy: 'auto'`, which leaves a word the index contains alone), so the
// back-off runs only when neither finds anything.

/** @typedef {import('../pkg/index.js').SearchOptions} SearchOptions */
/** @typedef {import('../pkg/index.js').Filter} Filter */

/**
 * The search controls' values.
 * @typedef {object} SearchState
 * @property {string} q the query as typed
 * @property {'or' | 'and' | 'fallback'} mode
 * @property {string} namespace
 * @property {string} kind
 * @property {string} tags comma-separated
 * @property {string} from `<input type=date>` value
 * @property {string} to
 * @property {string} sort `relevance`, `newest` or `oldest`
 */

/**
 * A query with its last word made a prefix term.
 * @typedef {{ query: string, head?: string, word?: string }} Prefixed
 */

/**
 * A backed-off prefix: the word as typed and the prefix searched instead.
 * @typedef {{ typed: string, as: string }} Completion
 */

/**
 * One search as the page runs it.
 * @typedef {object} SearchRequest
 * @property {string} query sent to `index.search`
 * @property {Prefixed} prefixed
 * @property {SearchOptions & { filter: Filter }} options
 * @property {boolean} listing a blank query: lists, unranked
 * @property {boolean} sorted ordered by time, not score
 * @property {Completion | null} completion set when the last word was backed off
 * @property {string[]} notes sentences for the summary
 */

/**
 * The search a result came from: what the detail view explains.
 * @typedef {object} SearchContext
 * @property {SearchState} state
 * @property {SearchRequest} req
 * @property {'or' | 'and'} mode the mode that answered
 * @property {number} [total]
 * @property {number} rank the result's 1-based position
 */

export const PAGE = 20;

const WORD_END = /(^|[\s(+\-:])([\p{L}\p{N}_]+)$/u;
const OPERATORS = new Set(['AND', 'OR', 'NOT']);

/**
 * The query with its last, unfinished word as a prefix term.
 * @param {string} text raw input
 * @returns {{ query: string, head?: string, word?: string }} `head` + `word` + `*` when prefixed
 */
export function prefixLastWord(text) {
  const query = text.trim();
  if (!query || /\s$/.test(text)) return { query };
  if ((query.match(/"/g) ?? []).length % 2 === 1) return { query }; // inside a phrase
  const m = WORD_END.exec(query);
  if (!m || OPERATORS.has(m[2])) return { query };
  const word = m[2];
  const head = query.slice(0, query.length - word.length);
  return { query: `${head}${word}*`, head, word };
}

/**
 * For a prefixed query that found nothing: the same query with the last
 * word cut back (at most three letters, at least three left) to the
 * longest prefix that an index term starts with, or null.
 * @param {{ head?: string, word?: string }} prefixed from prefixLastWord
 * @param {(prefix: string) => boolean} hasTerms
 */
export function backOff(prefixed, hasTerms) {
  const { head, word } = prefixed;
  if (word === undefined || hasTerms(word.toLowerCase())) return null;
  for (let cut = 1; cut <= 3 && word.length - cut >= 3; cut++) {
    const shorter = word.slice(0, -cut);
    if (hasTerms(shorter.toLowerCase())) return { query: `${head}${shorter}*`, completion: { typed: word, as: shorter } };
  }
  return null;
}

/**
 * Start of a local calendar day (from an `<input type=date>` value), as ISO-8601.
 * @param {string} value
 */
function dayStart(value, plusDays = 0) {
  const [y, m, d] = value.split('-').map(Number);
  return new Date(y, m - 1, d + plusDays).toISOString();
}

/**
 * The structural filter. A namespace ending in `*` is a prefix, which
 * memdex filters itself; the summary says how many of the namespaces the
 * page knows it covers.
 * @param {SearchState} state control values
 * @param {Set<string>} namespaces known namespaces
 */
export function buildFilter(state, namespaces) {
  /** @type {Filter} */
  const filter = {};
  /** @type {string[]} */
  const notes = [];
  const ns = state.namespace.trim();
  if (ns.endsWith('*')) {
    const prefix = ns.slice(0, -1);
    const matching = [...namespaces].filter((n) => n.startsWith(prefix));
    filter.namespace = ns;
    notes.push(`namespace ${ns}: ${matching.length} namespace${matching.length === 1 ? '' : 's'}`);
  } else if (ns) {
    filter.namespace = ns;
  }
  if (state.kind) filter.kind = state.kind;
  const tags = state.tags
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  if (tags.length) filter.tags = tags;
  if (state.from || state.to) {
    /** @type {import('../pkg/index.js').RangeFilter} */
    const range = {};
    if (state.from) range.gte = dayStart(state.from);
    if (state.to) range.lt = dayStart(state.to, 1); // the whole "to" day
    filter.timestamp = range;
  }
  return { filter, notes };
}

/**
 * @param {SearchState} state
 * @param {{ namespaces: Set<string> }} ctx
 * @param {number} offset
 * @returns {SearchRequest}
 */
export function buildRequest(state, ctx, offset = 0) {
  const prefixed = prefixLastWord(state.q);
  const { filter, notes } = buildFilter(state, ctx.namespaces);
  const listing = prefixed.query === '';
  // A blank query lists; relevance means nothing there, so it lists newest first.
  /** @type {import('../pkg/index.js').SortOptions | undefined} */
  let sort;
  if (state.sort === 'newest' || (listing && state.sort !== 'oldest')) sort = { field: 'timestamp', order: 'desc' };
  else if (state.sort === 'oldest') sort = { field: 'timestamp', order: 'asc' };
  /** @type {SearchRequest['options']} */
  const options = {
    mode: state.mode,
    limit: PAGE,
    offset,
    filter,
    fuzzy: 'auto',
    highlight: { snippetLength: 200 },
  };
  if (sort) options.sort = sort;
  return { query: prefixed.query, prefixed, options, listing, sorted: Boolean(sort), completion: null, notes };
}
