// Highlighting where the engine returns no snippet (a field the query did
// not match: title-only hits, listings) and in the terminal demo: marks
// every word that starts with one of the hit's matched (analyzed, e.g.
// stemmed) terms, and cuts a window of text around the first match. Output
// is HTML-escaped unless `escape` is false.

const WORD = /[\p{L}\p{N}_]+/gu;

/** @type {Record<string, string>} */
const ENTITIES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** @param {string} s */
export function escapeHtml(s) {
  return s.replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

/**
 * @param {string} word
 * @param {string[]} terms
 */
function matches(word, terms) {
  const w = word.toLowerCase();
  return terms.some((t) => t.length > 0 && w.startsWith(t));
}

/**
 * @param {string} text
 * @param {string[]} terms  matched index terms (lowercase)
 * @param {{pre?: string, post?: string, length?: number, escape?: boolean}} [opts]
 */
export function highlight(text, terms, opts = {}) {
  const { pre = '<mark>', post = '</mark>', length = 160, escape = true } = opts;
  const esc = escape ? escapeHtml : (/** @type {string} */ s) => s;
  text = String(text ?? '');
  terms = (terms ?? []).map((t) => String(t).toLowerCase());

  // Choose the window: start a little before the first matching word.
  let start = 0;
  for (const m of text.matchAll(WORD)) {
    if (matches(m[0], terms)) {
      start = Math.max(0, m.index - Math.floor(length / 4));
      break;
    }
  }
  if (start > 0) {
    const space = text.indexOf(' ', start);
    start = space >= 0 && space < start + 20 ? space + 1 : start;
  }
  let end = Math.min(text.length, start + length);
  if (end < text.length) {
    const space = text.lastIndexOf(' ', end);
    if (space > start + length / 2) end = space;
  }
  const window = text.slice(start, end);

  let out = start > 0 ? '…' : '';
  let last = 0;
  for (const m of window.matchAll(WORD)) {
    if (!matches(m[0], terms)) continue;
    out += esc(window.slice(last, m.index)) + pre + esc(m[0]) + post;
    last = m.index + m[0].length;
  }
  out += esc(window.slice(last)) + (end < text.length ? '…' : '');
  return out;
}
