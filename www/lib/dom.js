// Small DOM and formatting helpers shared by the explorer's modules.
export { escapeHtml } from '../highlight.js';

export const $ = (sel, root = document) => root.querySelector(sel);
export const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];

/** Creates an element: h('li', { class: 'hit', dataset: { id } }, child, 'text'). */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k === 'html') el.innerHTML = v;
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k in el && typeof v !== 'string') el[k] = v;
    else el.setAttribute(k, v === true ? '' : v);
  }
  el.append(...children.flat().filter((c) => c !== undefined && c !== null && c !== false));
  return el;
}

const NUM = new Intl.NumberFormat('en');
export const num = (n) => NUM.format(n);

export function bytes(n) {
  if (!Number.isFinite(n)) return '–';
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

export function ms(v) {
  if (!Number.isFinite(v)) return '–';
  return v < 10 ? `${v.toFixed(2)} ms` : v < 100 ? `${v.toFixed(1)} ms` : `${Math.round(v)} ms`;
}

/** Date fields hold ISO strings or epoch ms (memdex returns them as given). */
export function toDate(value) {
  if (value === undefined || value === null || value === '') return null;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : d;
}

const DAY = new Intl.DateTimeFormat('en', { year: 'numeric', month: 'short', day: 'numeric' });
const FULL = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short' });
export const shortDate = (d) => (d ? DAY.format(d) : '');
export const fullDate = (d) => (d ? FULL.format(d) : '');

/** A `<time>` element for a date field value. */
export function timeEl(value, full = false) {
  const d = toDate(value);
  if (!d) return null;
  return h('time', { datetime: d.toISOString(), title: d.toISOString() }, full ? fullDate(d) : shortDate(d));
}

/** Message of an error, with the MemdexError code when there is one. */
export const errorText = (err) => (err?.code ? `${err.code}: ${err.message}` : String(err?.message ?? err));

/** Resolves after the next frame has been produced (rendering included). */
export const nextFrame = () => new Promise((resolve) => requestAnimationFrame(() => resolve(performance.now())));
