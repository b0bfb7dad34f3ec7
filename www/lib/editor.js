// The memory form, used both to add (side panel) and to edit (detail
// dialog): title, text, kind, namespace, tags, time. Fields the form does
// not show (links, or any field of an imported schema) are kept on edit.
import { errorText, h, toDate } from './dom.js';

/** @typedef {import('../pkg/index.js').MemdexDocument} MemdexDocument */

let uid = 0;

/**
 * `datetime-local` value (local time, minutes) for a Date.
 * @param {Date} d
 */
function localInput(d) {
  /** @param {number} n */
  const pad = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export function newId() {
  return `m-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
}

/**
 * @param {object} opts
 * @param {MemdexDocument} [opts.doc] the memory to edit (absent: a new one)
 * @param {import('./store.js').Facets} opts.facets
 * @param {(doc: MemdexDocument) => Promise<void>} opts.onSubmit
 * @param {() => void} [opts.onCancel]
 * @param {string} [opts.id] form element id
 */
export function memoryForm({ doc, facets, onSubmit, onCancel, id }) {
  const n = ++uid;
  /**
   * @param {string} label
   * @param {HTMLElement} control
   * @param {string} [hint]
   */
  const field = (label, control, hint) =>
    h('label', { class: 'field' }, h('span', { class: 'label' }, label), control, hint ? h('span', { class: 'field-hint' }, hint) : null);
  /**
   * @param {string} name
   * @param {Set<string>} values
   */
  const list = (name, values) => h('datalist', { id: `${name}-${n}` }, [...values].sort().map((v) => h('option', { value: v })));
  const when = toDate(doc?.timestamp) ?? new Date();
  const tags = Array.isArray(doc?.tags) ? doc.tags.join(', ') : (doc?.tags ?? '');

  const status = h('p', { class: 'form-status', role: 'status' });
  const submit = h('button', { type: 'submit', class: 'primary' }, doc ? 'Save changes' : 'Add memory');
  const form = h(
    'form',
    { class: 'memory-form', id },
    field('Title', h('input', { name: 'title', required: true, maxlength: '200', autocomplete: 'off', value: doc?.title ?? '' })),
    field('Text', h('textarea', { name: 'text', rows: '4', required: true }, String(doc?.text ?? ''))),
    h(
      'div',
      { class: 'row' },
      field('Kind', h('input', { name: 'kind', list: `kinds-${n}`, value: doc?.kind ?? 'note', autocomplete: 'off' })),
      field('Namespace', h('input', { name: 'namespace', list: `nss-${n}`, value: doc ? (doc.namespace ?? '') : 'user:me', maxlength: '100', autocomplete: 'off' })),
    ),
    field('Tags', h('input', { name: 'tags', list: `tags-${n}`, value: tags, autocomplete: 'off' }), 'comma-separated'),
    field('Time', h('input', { name: 'timestamp', type: 'datetime-local', value: localInput(when), required: true })),
    list('kinds', facets.kinds),
    list('nss', facets.namespaces),
    list('tags', facets.tags),
    h(
      'div',
      { class: 'actions' },
      submit,
      onCancel ? h('button', { type: 'button', onclick: onCancel }, 'Cancel') : null,
    ),
    status,
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const f = new FormData(form);
    /** @param {string} k */
    const value = (k) => String(f.get(k) ?? '').trim();
    /** @type {MemdexDocument} */
    const next = {
      ...(doc ?? {}),
      id: doc?.id ?? newId(),
      title: value('title'),
      text: value('text'),
      kind: value('kind') || 'note',
      timestamp: new Date(value('timestamp')).toISOString(),
    };
    const ns = value('namespace');
    if (ns) next.namespace = ns;
    else delete next.namespace;
    const tagList = [...new Set(value('tags').split(',').map((t) => t.trim()).filter(Boolean))];
    if (tagList.length) next.tags = tagList;
    else delete next.tags;
    submit.disabled = true;
    status.textContent = 'Saving…';
    try {
      await onSubmit(next);
    } catch (err) {
      status.textContent = `Not saved: ${errorText(err)}`;
    } finally {
      submit.disabled = false;
    }
  });
  return form;
}
