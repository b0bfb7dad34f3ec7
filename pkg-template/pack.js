// `Memdex#pack`: the best hits of a search rendered as compact context for a
// model, never over a token budget. In JS, over `search` results, because the
// caller's token counter (`countTokens`) is a JS function; the engine ranks,
// this module only renders and cuts.
//
// Each hit renders as
//   [1] Title (kind, 2026-05-01T10:00:00.000Z) id=m7
//   text (the whole stored text, or what fits)
// Blocks are added best first while the whole text fits: usedTokens is
// countTokens of the final text, which is <= budgetTokens. A hit whose block
// does not fit whole is cut to what fits (its id goes into `truncated`) when
// at least MIN_CHARS of its text fit; otherwise it is left out (`omitted`).

/** Default token counter: ceil(characters / 4), a common rough estimate for English. */
export const defaultCountTokens = (/** @type {string} */ text) => Math.ceil(text.length / 4);

const MIN_CHARS = 40;
const ELLIPSIS = '…';

/**
 * @param {import('./index.js').Hit} hit
 * @param {number} n
 */
function header(hit, n) {
  const f = hit.fields ?? {};
  const meta = [];
  if (typeof f.kind === 'string') meta.push(f.kind);
  if (f.timestamp !== undefined && f.timestamp !== null) {
    const t = typeof f.timestamp === 'number' ? new Date(f.timestamp).toISOString() : String(f.timestamp);
    meta.push(t);
  }
  const title = typeof f.title === 'string' && f.title ? f.title : hit.id;
  return `[${n}] ${title}${meta.length ? ` (${meta.join(', ')})` : ''} id=${hit.id}`;
}

/** @param {import('./index.js').Hit} hit */
function body(hit) {
  const f = hit.fields ?? {};
  if (typeof f.text === 'string' && f.text) return f.text;
  const snippet = hit.snippets && Object.values(hit.snippets)[0];
  return typeof snippet === 'string' ? snippet : '';
}

/**
 * @param {{ search: Function, count: Function }} db
 * @param {string} query
 * @param {import('./index.js').PackOptions} options
 * @param {(message: string) => Error} usage
 * @returns {import('./index.js').PackResult}
 */
export function pack(db, query, options, usage) {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw usage('pack(query, options): options must be an object with budgetTokens');
  }
  const { budgetTokens, countTokens = defaultCountTokens, ...searchOptions } = options;
  if (!(Number.isInteger(budgetTokens) && budgetTokens > 0)) {
    throw usage('pack: `budgetTokens` must be a positive integer (the most tokens the packed text may use)');
  }
  if (typeof countTokens !== 'function') throw usage('pack: `countTokens` must be a function (text) => number');
  const count = (/** @type {string} */ text) => {
    const n = countTokens(text);
    if (!(Number.isFinite(n) && n >= 0)) throw usage('pack: `countTokens` must return a finite number >= 0');
    return n;
  };
  const empty = { text: '', hits: [], truncated: [], omitted: 0, usedTokens: 0 };
  if (db.count() === 0) return { ...empty, reason: /** @type {const} */ ('empty-index') };
  const results = db.search(query, { limit: 20, ...searchOptions });
  if (results.hits.length === 0) return { ...empty, reason: /** @type {const} */ ('no-match') };

  let text = '';
  const hits = [];
  const truncated = [];
  let omitted = 0;
  for (const hit of results.hits) {
    const head = header(hit, hits.length + 1);
    const full = body(hit);
    const join = (/** @type {string} */ b) => (text ? `${text}\n\n` : '') + (b ? `${head}\n${b}` : head);
    if (count(join(full)) <= budgetTokens) {
      text = join(full);
      hits.push(hit);
      continue;
    }
    // The longest prefix of the body that fits (binary search on characters).
    let lo = 0;
    let hi = full.length;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (count(join(full.slice(0, mid) + ELLIPSIS)) <= budgetTokens) lo = mid;
      else hi = mid - 1;
    }
    if (lo >= Math.min(MIN_CHARS, full.length) && lo > 0) {
      text = join(full.slice(0, lo) + ELLIPSIS);
      hits.push(hit);
      truncated.push(hit.id);
    } else {
      omitted++;
    }
  }
  return { text, hits, truncated, omitted, reason: /** @type {const} */ ('ok'), usedTokens: text ? count(text) : 0 };
}
