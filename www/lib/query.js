// From the search controls to one `index.search(query, options)` call.
//
// Search as you type: the last word, while it is being typed (no space
// after it yet), becomes a prefix term `word*`, so "dep" already finds
// "deploy". The engine stems a prefix term before expanding it
// ("deploying*" expands "deploy"), which leaves a gap mid-word: "deployi"
// stems to nothing in the index. When no index term starts with the typed
// word, the page backs off up to three letters to the longest prefix that
// some term starts with, and says so in the summary. (Typo tolerance would
// slot in here when memdex grows it; nothing here pretends to correct typos.)

export const PAGE = 20;

const WORD_END = /(^|[\s(+\-:])([\p{L}\p{N}_]+)$/u;
const OPERATORS = new Set(['AND', 'OR', 'NOT']);

/**
 * The query with its last, unfinished word as a prefix term.
 * @param {string} text raw input
 * @param {(prefix: string) => boolean} hasTerms whether an index term starts with `prefix`
 * @returns {{ query: string, completion: null | { typed: string, as: string } }}
 */
export function prefixLastWord(text, hasTerms) {
  const query = text.trim();
  if (!query || /\s$/.test(text)) return { query, completion: null };
  if ((query.match(/"/g) ?? []).length % 2 === 1) return { query, completion: null }; // inside a phrase
  const m = WORD_END.exec(query);
  if (!m || OPERATORS.has(m[2])) return { query, completion: null };
  const word = m[2];
  const head = query.slice(0, query.length - word.length);
  let stem = word;
  if (!hasTerms(word.toLowerCase())) {
    for (let cut = 1; cut <= 3 && word.length - cut >= 3; cut++) {
      const shorter = word.slice(0, -cut);
      if (hasTerms(shorter.toLowerCase())) {
        stem = shorter;
        break;
      }
    }
  }
  return {
    query: `${head}${stem}*`,
    completion: stem === word ? null : { typed: word, as: stem },
  };
}

/** Start of a local calendar day (from an `<input type=date>` value), as ISO-8601. */
function dayStart(value, plusDays = 0) {
  const [y, m, d] = value.split('-').map(Number);
  return new Date(y, m - 1, d + plusDays).toISOString();
}

/**
 * The structural filter. memdex matches namespaces exactly (one or any of
 * several), so a namespace ending in `*` is expanded here to the known
 * namespaces with that prefix.
 * @param {object} state control values
 * @param {Set<string>} namespaces known namespaces
 */
export function buildFilter(state, namespaces) {
  const filter = {};
  const notes = [];
  const ns = state.namespace.trim();
  if (ns.endsWith('*')) {
    const prefix = ns.slice(0, -1);
    const matching = [...namespaces].filter((n) => n.startsWith(prefix)).sort();
    filter.namespace = matching;
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
    const range = {};
    if (state.from) range.gte = dayStart(state.from);
    if (state.to) range.lt = dayStart(state.to, 1); // the whole "to" day
    filter.timestamp = range;
  }
  return { filter, notes };
}

/**
 * @param {object} state `{ q, mode, namespace, kind, tags, from, to, sort }`
 * @param {{ hasTerms: (p: string) => boolean, namespaces: Set<string> }} ctx
 * @param {number} offset
 */
export function buildRequest(state, ctx, offset = 0) {
  const { query, completion } = prefixLastWord(state.q, ctx.hasTerms);
  const { filter, notes } = buildFilter(state, ctx.namespaces);
  const listing = query === '';
  // A blank query lists; relevance means nothing there, so it lists newest first.
  let sort;
  if (state.sort === 'newest' || (listing && state.sort !== 'oldest')) sort = { field: 'timestamp', order: 'desc' };
  else if (state.sort === 'oldest') sort = { field: 'timestamp', order: 'asc' };
  const options = {
    mode: state.mode,
    limit: PAGE,
    offset,
    filter,
    highlight: { snippetLength: 200 },
  };
  if (sort) options.sort = sort;
  return { query, options, listing, sorted: Boolean(sort), completion, notes };
}
