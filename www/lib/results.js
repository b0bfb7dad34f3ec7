// One result card. Snippets come from the engine (HTML-escaped, with
// <mark> around matched terms); when the text did not match (title-only
// hits, listings) the page shows the start of the text, escaped, and marks
// words by the matched analyzed terms (highlight.js).
import { highlight } from '../highlight.js';
import { escapeHtml, h, timeEl } from './dom.js';

/**
 * @param {import('../pkg/index.js').Hit} hit
 * @param {number} rank 1-based position in the result list
 * @param {boolean} scored whether scores mean anything (not a listing)
 */
export function renderHit(hit, rank, scored) {
  const f = hit.fields ?? {};
  const title = String(f.title ?? '') || hit.id;
  const titleHtml = hit.snippets?.title ?? (f.title ? highlight(title, hit.matchedTerms, { length: 1000 }) : escapeHtml(hit.id));
  const text = String(f.text ?? '');
  const snippet = hit.snippets?.text ?? highlight(text, hit.matchedTerms, { length: 200 });
  const tags = Array.isArray(f.tags) ? f.tags : f.tags ? [f.tags] : [];
  return h(
    'li',
    { class: 'hit', dataset: { id: hit.id, rank: String(rank) } },
    h(
      'h3',
      { class: 'title' },
      h('button', { type: 'button', class: 'open', 'aria-haspopup': 'dialog', html: titleHtml }),
    ),
    h('p', { class: 'snippet', html: snippet }),
    h(
      'p',
      { class: 'meta' },
      hit.namespace ? h('span', { class: 'namespace' }, hit.namespace) : null,
      f.kind ? h('span', { class: 'kind' }, String(f.kind)) : null,
      timeEl(f.timestamp),
      tags.length ? h('span', { class: 'tags' }, tags.map((t) => h('span', { class: 'tag' }, String(t)))) : null,
      scored ? h('span', { class: 'score', title: 'BM25F score' }, `#${rank} · ${hit.score.toFixed(2)}`) : null,
      scored && hit.matchedTerms?.length ? h('span', { class: 'terms' }, hit.matchedTerms.join(', ')) : null,
    ),
  );
}
