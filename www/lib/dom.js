// Small DOM and formatting helpers shared by the explorer's modules.
export { escapeHtml } from '../highlight.js';

/**
 * The element `sel` names, checked to be a `type` (HTMLElement unless
 * given). The page's markup has every element the modules ask for, so a
 * missing one is a bug: this throws instead of returning null.
 * @template {Element} [E=HTMLElement]
 * @param {string} sel
 * @param {{ new (): E, prototype: E }} [type]
 * @returns {E}
 */
export function $(sel, type) {
  const el = document.querySelector(sel);
  if (!(el instanceof (type ?? HTMLElement))) throw new Error(`explorer: no ${type?.name ?? 'HTMLElement'} matches ${sel}`);
  return /** @type {E} */ (el);
}

/**
 * Every element `sel` names, as HTMLElements.
 * @param {string} sel
 * @param {ParentNode} [root]
 */
export const $$ = (sel, root = document) => [...root.querySelectorAll(sel)].filter((el) => el instanceof HTMLElement);

/**
 * Properties of {@link h}: `class`, `dataset`, `html` (innerHTML), `on<event>`
 * listeners, element properties (non-string values) and attributes.
 * @typedef {Record<string, unknown>} Props
 */
/** @typedef {Node | string | null | undefined | false} Child */

/**
 * Creates an element: h('li', { class: 'hit', dataset: { id } }, child, 'text').
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Props} [props]
 * @param {...(Child | Child[])} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = String(v);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k === 'html') el.innerHTML = String(v);
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), /** @type {EventListener} */ (v));
    else if (k in el && typeof v !== 'string') /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (el))[k] = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  el.append(...children.flat().filter((c) => c !== undefined && c !== null && c !== false));
  return el;
}

const NUM = new Intl.NumberFormat('en');
/** @param {number} n */
export const num = (n) => NUM.format(n);

/** @param {number | undefined} n */
export function bytes(n) {
  if (n === undefined || !Number.isFinite(n)) return '–';
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

/** @param {number | undefined} v */
export function ms(v) {
  if (v === undefined || !Number.isFinite(v)) return '–';
  return v < 10 ? `${v.toFixed(2)} ms` : v < 100 ? `${v.toFixed(1)} ms` : `${Math.round(v)} ms`;
}

/**
 * Date fields hold ISO strings or epoch ms (memdex returns them as given).
 * @param {unknown} value
 */
export function toDate(value) {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string' && typeof value !== 'number' && !(value instanceof Date)) return null;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : d;
}

const DAY = new Intl.DateTimeFormat('en', { year: 'numeric', month: 'short', day: 'numeric' });
const FULL = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short' });
/** @param {Date | null} d */
export const shortDate = (d) => (d ? DAY.format(d) : '');
/** @param {Date | null | undefined} d */
export const fullDate = (d) => (d ? FULL.format(d) : '');

/**
 * A `<time>` element for a date field value.
 * @param {unknown} value
 */
export function timeEl(value, full = false) {
  const d = toDate(value);
  if (!d) return null;
  return h('time', { datetime: d.toISOString(), title: d.toISOString() }, full ? fullDate(d) : shortDate(d));
}

/**
 * Message of an error, with the MemdexError code when there is one.
 * @param {unknown} err
 */
export const errorText = (err) => {
  const e = /** @type {{ code?: string, message?: string } | null | undefined} */ (err);
  return e?.code ? `${e.code}: ${e.message}` : String(e?.message ?? err);
};
