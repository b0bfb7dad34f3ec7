// The score explanation panel: `search(..., { explain: true })` returns one
// entry per (query term, field) that contributed to a hit's BM25F score,
// with the inputs of the formula. The rows add up to the score; each gets a
// bar of its share. The explorer's schema has no vector field, so BM25F is
// the only signal; a hybrid search's hits also carry their lexical and
// vector ranks (`hit.lexical`, `hit.vector`), more entries for `signals()`.
import { h, num } from './dom.js';

/** @typedef {import('./query.js').SearchContext} SearchContext */
/** @typedef {import('../pkg/index.js').Hit} Hit */

/**
 * Re-runs the search that produced a hit, for that hit alone, with
 * `explain: true`: same query, mode, filter and sort, offset at its rank.
 * Explanations are not fetched per keystroke because only this panel needs
 * them. Falls back to a wider page if the index changed in between.
 * @param {import('../pkg/index.js').Memdex} index
 * @param {SearchContext} context
 * @param {string} id
 */
export function explainHit(index, context, id) {
  const { req, rank } = context;
  const { highlight, ...options } = req.options;
  const one = index.search(req.query, { ...options, offset: rank - 1, limit: 1, explain: true, storedFields: false });
  let hit = one.hits.find((x) => x.id === id);
  if (!hit) {
    const wide = index.search(req.query, { ...options, offset: 0, limit: Math.min(10_000, rank + 100), explain: true, storedFields: false });
    hit = wide.hits.find((x) => x.id === id);
  }
  return hit ?? null;
}

/**
 * Ranking signals of a hit: BM25F, the only one of a schema without vectors.
 * @param {Hit} hit
 * @param {SearchContext} context
 */
function signals(hit, context) {
  const list = [{ name: 'BM25F (lexical)', value: `score ${hit.score.toFixed(3)}` }];
  if (!context.req.sorted) list[0].value = `rank #${context.rank} · ${list[0].value}`;
  return list;
}

/** @param {number} v */
const fmt = (v, digits = 2) => (Number.isInteger(v) ? num(v) : v.toFixed(digits));

/**
 * @param {Hit} hit a hit with `explanation`
 * @param {SearchContext} context the search it came from
 */
export function renderExplanation(hit, context) {
  const rows = [...(hit.explanation ?? [])].sort((a, b) => b.score - a.score);
  const total = rows.reduce((s, r) => s + r.score, 0) || hit.score || 1;
  /** @type {Map<string, number>} */
  const byTerm = new Map();
  for (const r of rows) byTerm.set(r.term, (byTerm.get(r.term) ?? 0) + r.score);

  const typed = context.state.q.trim();
  const sent = context.req.query !== typed ? ` (searched as ${context.req.query})` : '';
  const heading = context.req.sorted
    ? `Score breakdown for “${typed}”${sent}, results sorted by time`
    : `Why #${context.rank} for “${typed}”${sent}`;
  /**
   * @param {number} share
   * @param {string} label
   */
  const bar = (share, label) =>
    h('span', { class: 'bar', role: 'img', 'aria-label': label }, h('span', { style: `width:${(share * 100).toFixed(1)}%` }));

  return h(
    'section',
    { class: 'explain', 'aria-labelledby': 'explain-h' },
    h('h3', { id: 'explain-h' }, heading),
    h(
      'ul',
      { class: 'signals' },
      signals(hit, context).map((s) => h('li', {}, h('strong', {}, s.name), ' ', s.value)),
    ),
    h(
      'p',
      { class: 'formula' },
      `The score is the sum of the rows below: for each query term and field, BM25F combines the term's rarity (idf), `,
      `how often it occurs in the field (tf), the field's length against the average, and the weight: the field's `,
      `weight, halved for a term reached by expanding a prefix (the word being typed, or word*) or one typo away, `,
      `quartered two typos away.`,
    ),
    h(
      'ul',
      { class: 'term-shares', 'aria-label': 'Share of the score per term' },
      [...byTerm].map(([term, s]) =>
        h('li', {}, h('span', { class: 'term' }, term), bar(s / total, `${term}: ${Math.round((s / total) * 100)}%`), `${Math.round((s / total) * 100)}%`),
      ),
    ),
    h(
      'table',
      { class: 'explain-table' },
      h('caption', {}, 'Contribution of each term in each field'),
      h(
        'thead',
        {},
        h('tr', {}, ['term', 'field', 'share', 'idf', 'tf', 'length / avg', 'weight', 'score'].map((c) => h('th', { scope: 'col' }, c))),
      ),
      h(
        'tbody',
        {},
        rows.map((r) => {
          const share = r.score / total;
          const pct = `${(share * 100).toFixed(0)}%`;
          return h(
            'tr',
            {},
            h('th', { scope: 'row', 'data-label': 'term' }, r.term),
            h('td', { 'data-label': 'field' }, r.field),
            h('td', { 'data-label': 'share', class: 'share' }, bar(share, pct), pct),
            h('td', { 'data-label': 'idf' }, fmt(r.idf)),
            h('td', { 'data-label': 'tf' }, fmt(r.tf)),
            h('td', { 'data-label': 'length / avg' }, `${fmt(r.fieldLength)} / ${fmt(r.avgFieldLength, 1)}`),
            h('td', { 'data-label': 'weight' }, fmt(r.weight)),
            h('td', { 'data-label': 'score' }, r.score.toFixed(3)),
          );
        }),
      ),
      h('tfoot', {}, h('tr', {}, h('th', { scope: 'row', colspan: '7' }, 'total'), h('td', { 'data-label': 'total' }, total.toFixed(3)))),
    ),
  );
}
