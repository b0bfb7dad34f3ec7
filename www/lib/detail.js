// The detail view of one memory, in a modal <dialog> (focus stays inside,
// Escape closes, focus returns to the result that opened it): every stored
// field, its links, why it ranked where it did, and edit / delete.
import { $, $$, errorText, h, timeEl, toDate } from './dom.js';
import { memoryForm } from './editor.js';
import { explainHit, renderExplanation } from './explain.js';

/** @typedef {import('../pkg/index.js').MemdexDocument} MemdexDocument */
/** @typedef {import('./dom.js').Child} Child */

const SHOWN = new Set(['id', 'title', 'text', 'namespace', 'kind', 'tags', 'timestamp', 'links']);

export class DetailView {
  /** @type {HTMLElement | null} the element focus returns to */
  #opener = null;
  /** The memory shown. */
  id = '';
  /** @type {import('./query.js').SearchContext | null} the search it was opened from */
  context = null;

  /**
   * @param {import('./store.js').Store} store
   * @param {{ announce: (text: string) => void }} hooks
   */
  constructor(store, hooks) {
    this.store = store;
    this.hooks = hooks;
    this.dialog = $('#detail', HTMLDialogElement);
    this.body = $('#detail-body');
    $('#detail-close').addEventListener('click', () => this.dialog.close());
    this.dialog.addEventListener('close', () => {
      const back = this.#opener?.isConnected ? this.#opener : ($$(`#results li.hit[data-id="${CSS.escape(this.id)}"] button.open`)[0] ?? $('#q'));
      back?.focus();
    });
    // A click on the backdrop (outside the dialog box) closes it.
    this.dialog.addEventListener('click', (e) => {
      if (e.target === this.dialog) this.dialog.close();
    });
  }

  /**
   * Opens memory `id`; `context` is the search it came from (null: opened from a link).
   * @param {string} id
   * @param {import('./query.js').SearchContext | null} context
   */
  open(id, context) {
    if (!this.dialog.open) this.#opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    this.id = id;
    this.context = context;
    this.#view();
    if (!this.dialog.open) this.dialog.showModal();
    $('#detail-title').focus();
  }

  #view(status = '') {
    const doc = this.store.index.get(this.id);
    $('#detail-title').textContent = doc ? String(doc.title ?? '') || doc.id : 'Memory not found';
    if (!doc) {
      this.body.replaceChildren(h('p', {}, `No memory with id ${this.id} (deleted in another tab?).`));
      return;
    }
    /**
     * @param {string} label
     * @param {...(Child | Child[])} value
     */
    const row = (label, ...value) => [h('dt', {}, label), h('dd', {}, ...value)];
    const tags = Array.isArray(doc.tags) ? doc.tags : doc.tags ? [doc.tags] : [];
    const when = toDate(doc.timestamp);
    const others = Object.entries(doc).filter(([k]) => !SHOWN.has(k));
    this.body.replaceChildren(
      h(
        'dl',
        { class: 'fields' },
        row('Text', h('span', { class: 'text' }, String(doc.text ?? ''))),
        row('Namespace', doc.namespace ?? '—'),
        row('Kind', String(doc.kind ?? '—')),
        row('Tags', tags.length ? tags.map((t) => h('span', { class: 'tag' }, String(t))) : '—'),
        row('Time', when ? timeEl(doc.timestamp, true) : '—', when ? h('span', { class: 'iso' }, ` ${when.toISOString()}`) : null),
        row('Id', h('code', {}, doc.id)),
        ...others.flatMap(([k, v]) => row(k, h('code', {}, typeof v === 'string' ? v : JSON.stringify(v)))),
        ...(Array.isArray(doc.links) && doc.links.length ? row('Links', this.#links(doc.links)) : []),
      ),
      this.#explanation(),
      h(
        'div',
        { class: 'actions' },
        h('button', { type: 'button', class: 'primary', onclick: () => this.#edit(doc), disabled: this.store.busy }, 'Edit'),
        h('button', { type: 'button', class: 'danger', onclick: (/** @type {MouseEvent} */ e) => this.#confirmDelete(/** @type {HTMLElement} */ (e.currentTarget)), disabled: this.store.busy }, 'Delete'),
      ),
      h('p', { class: 'form-status', role: 'status' }, status),
    );
  }

  /**
   * Typed edges to other memories; a link to a memory that is gone says so.
   * @param {({ type?: unknown, to?: unknown } | null | undefined)[]} links
   */
  #links(links) {
    return h(
      'ul',
      { class: 'links' },
      links.map((link) => {
        const target = typeof link?.to === 'string' ? this.store.index.get(link.to) : undefined;
        return h(
          'li',
          {},
          h('span', { class: 'link-type' }, String(link?.type ?? 'LINK')),
          ' → ',
          target
            ? h('button', { type: 'button', class: 'link', onclick: () => this.open(target.id, null) }, String(target.title ?? target.id))
            : h('span', {}, `${link?.to} (not in this index)`),
        );
      }),
    );
  }

  #explanation() {
    const ctx = this.context;
    if (!ctx) return h('p', { class: 'muted' }, 'Opened from a link: no search to explain.');
    if (ctx.req.listing) return h('p', { class: 'muted' }, 'Listed without a query, so not ranked: type a query to see why a memory ranks where it does.');
    let hit;
    try {
      hit = explainHit(this.store.index, ctx, this.id);
    } catch (err) {
      return h('p', {}, `No explanation: ${errorText(err)}`);
    }
    if (!hit) return h('p', { class: 'muted' }, 'This memory no longer matches the search.');
    return renderExplanation(hit, ctx);
  }

  /** @param {MemdexDocument} doc */
  #edit(doc) {
    const form = memoryForm({
      doc,
      facets: this.store.facets,
      id: 'edit-form',
      onCancel: () => this.#view(),
      onSubmit: async (next) => {
        await this.store.save(next);
        this.#view(`Saved (commit ${this.store.index.generation}).`);
        $('#detail-title').focus();
        this.hooks.announce(`Saved “${next.title}”.`);
      },
    });
    this.body.replaceChildren(form);
    $$('[name=title]', form)[0]?.focus();
  }

  /** @param {HTMLElement} button the Delete button, replaced by the question */
  #confirmDelete(button) {
    const keep = h('button', { type: 'button', onclick: () => this.#view() }, 'Keep it');
    const confirm = h(
      'button',
      {
        type: 'button',
        class: 'danger',
        onclick: async () => {
          confirm.disabled = true;
          try {
            const title = $('#detail-title').textContent;
            await this.store.remove(this.id);
            this.dialog.close();
            this.hooks.announce(`Deleted “${title}”.`);
          } catch (err) {
            this.#view(`Not deleted: ${errorText(err)}`);
          }
        },
      },
      'Yes, delete it',
    );
    button.replaceWith(h('span', { class: 'confirm' }, 'Delete this memory? ', confirm, ' ', keep));
    confirm.focus();
  }
}
