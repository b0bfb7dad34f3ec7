// memdex memory explorer. The browser build of the npm package (served
// from /pkg/) keeps an index of agent memories in IndexedDB; this module
// wires the parts together:
//   lib/store.js        the index session (open, seed, writes, facets)
//   lib/search-view.js  search as you type, filters, counts, hints
//   lib/detail.js       one memory: fields, links, explanation, edit, delete
//   lib/bulk.js         JSONL and the 100k set through Memdex.openInWorker
//   lib/panel.js        index statistics and keystroke latency
//   sw.js               offline use after the first load
import { BULK_NAMESPACES, syntheticMemories } from './synthetic.js';
import { $, $$, errorText, h, num } from './lib/dom.js';
import { Store } from './lib/store.js';
import { SearchView } from './lib/search-view.js';
import { DetailView } from './lib/detail.js';
import { IndexPanel } from './lib/panel.js';
import { memoryForm } from './lib/editor.js';
import { importThroughWorker, readJsonl } from './lib/bulk.js';
import { downloadSnapshot, importSnapshot } from './lib/snapshot.js';
import { enableOffline } from './lib/offline.js';

// ?bulk=N changes the size of the generated set (tests use a small one for speed).
const BULK_COUNT = Number(new URLSearchParams(location.search).get('bulk')) || 100_000;
/** @param {string} text */
const announce = (text) => {
  $('#announce').textContent = text;
};

async function main() {
  const store = await new Store().open();
  const panel = new IndexPanel(store);
  const detail = new DetailView(store, { announce });
  const search = new SearchView(store, {
    onOpen: (hit, context) => detail.open(hit.id, context),
    onMeasured: () => panel.updateLatency(),
  });

  const renderFacets = () => {
    const { namespaces, kinds, tags } = store.facets;
    // Namespace prefixes ("agent:*") next to the namespaces themselves.
    const prefixes = new Set([...namespaces].map((ns) => ns.match(/^[^:]+:/)?.[0]).filter(Boolean).map((p) => `${p}*`));
    $('#namespaces').replaceChildren(...[...prefixes, ...[...namespaces].sort()].map((v) => h('option', { value: v })));
    $('#tags').replaceChildren(...[...tags].sort().map((v) => h('option', { value: v })));
    const kind = $('#f-kind', HTMLSelectElement);
    const current = kind.value;
    kind.replaceChildren(h('option', { value: '' }, 'any'), ...[...kinds].sort().map((k) => h('option', { value: k }, k)));
    kind.value = current;
  };

  const addSlot = $('#add-slot');
  const renderAddForm = () => {
    addSlot.replaceChildren(
      memoryForm({
        facets: store.facets,
        id: 'add-form',
        onSubmit: async (doc) => {
          await store.save(doc);
          $('#add-status').textContent = `Added “${doc.title}” (saved: commit ${store.index.generation}).`;
          document.body.dataset.saved = String(store.index.generation);
          renderAddForm();
        },
      }),
    );
  };

  store.addEventListener('change', () => {
    renderFacets();
    panel.update();
    search.run();
    setBusy(store.busy);
  });

  // ---- bulk: JSONL files and the generated 100k set, via the worker ----
  const progress = $('#progress', HTMLProgressElement);
  const progressStatus = $('#progress-status');
  /** @param {boolean} busy */
  const setBusy = (busy) => {
    for (const id of ['jsonl', 'load-bulk', 'remove-bulk', 'export', 'snapshot-file', 'reset']) $(`#${id}`).toggleAttribute('disabled', busy);
    $$('#add-form button[type=submit]')[0]?.toggleAttribute('disabled', busy);
    $('#remove-bulk', HTMLButtonElement).disabled = busy || store.index.count({ namespace: BULK_NAMESPACES }) === 0;
    document.body.dataset.busy = String(busy);
  };
  /**
   * @param {string} label
   * @param {Iterable<import('./pkg/index.js').MemdexDocument> | AsyncIterable<import('./pkg/index.js').MemdexDocument>} docs
   * @param {{ total: number } | { total?: undefined, bytesTotal: number, bytesRead: () => number }} size
   *   the count when known, else the bytes of the file and how many are read
   */
  async function runImport(label, docs, size) {
    const { total } = size;
    setBusy(true);
    $('#progress-block').hidden = false;
    $('#progress-label').textContent = label;
    progress.value = 0;
    document.body.dataset.importing = 'true';
    const t0 = performance.now();
    try {
      const r = await importThroughWorker(store, docs, {
        total,
        onProgress: (added) => {
          const done = 'bytesRead' in size ? size.bytesRead() / size.bytesTotal : added / size.total;
          progress.value = Math.min(1, done);
          progressStatus.textContent = `${num(added)} memories indexed${total ? ` of ${num(total)}` : ''} (${Math.round(done * 100)}%)`;
        },
        onPhase: (text) => {
          progressStatus.textContent = text;
        },
      });
      progress.value = 1;
      progressStatus.textContent =
        `Imported ${num(r.added)} memories in ${((performance.now() - t0) / 1000).toFixed(1)} s. ` +
        `Longest pause of the page while the worker indexed: ${Math.round(r.longestFrameGap)} ms; ` +
        `loading the new commit into the page took ${Math.round(r.loadMs)} ms.`;
      document.body.dataset.imported = String(r.added);
    } catch (err) {
      const before = /** @type {import('./lib/bulk.js').ImportError | null} */ (err)?.added;
      progressStatus.textContent = `Import stopped: ${errorText(err)}${typeof before === 'number' && Number.isInteger(before) ? ` (${num(before)} memories before it were saved)` : ''}`;
      document.body.dataset.imported = 'error';
      await store.refresh().catch(() => {});
    } finally {
      delete document.body.dataset.importing;
      setBusy(false);
      panel.update();
    }
  }

  const jsonl = $('#jsonl', HTMLInputElement);
  jsonl.addEventListener('change', async () => {
    const file = jsonl.files?.[0];
    if (!file) return;
    let read = 0;
    const docs = readJsonl(file, (n) => {
      read = n;
    });
    await runImport(`Importing ${file.name}`, docs, { bytesTotal: file.size || 1, bytesRead: () => read });
    jsonl.value = '';
  });
  $('#load-bulk').addEventListener('click', () =>
    runImport(`Generating and indexing ${num(BULK_COUNT)} memories`, syntheticMemories(BULK_COUNT), { total: BULK_COUNT }),
  );
  $('#remove-bulk').addEventListener('click', async () => {
    setBusy(true);
    progressStatus.textContent = `Removing the generated memories (${BULK_NAMESPACES.length} bulk:* namespaces)…`;
    try {
      const n = await store.removeBulk();
      progressStatus.textContent = `Removed ${num(n)} generated memories and compacted the index.`;
    } catch (err) {
      progressStatus.textContent = `Not removed: ${errorText(err)}`;
    } finally {
      setBusy(false);
    }
  });

  // ---- snapshots ----
  $('#export').addEventListener('click', () => {
    const n = downloadSnapshot(store);
    $('#data-status').textContent = `Exported ${num(store.index.size)} memories (${num(n)} bytes).`;
  });
  const snapshotFile = $('#snapshot-file', HTMLInputElement);
  snapshotFile.addEventListener('change', async () => {
    const file = snapshotFile.files?.[0];
    if (!file) return;
    setBusy(true);
    $('#data-status').textContent = `Importing ${file.name}…`;
    try {
      await importSnapshot(store, file);
      $('#data-status').textContent = `Replaced the index with ${file.name}: ${num(store.index.size)} memories.`;
      document.body.dataset.snapshot = 'imported';
    } catch (err) {
      $('#data-status').textContent = `Snapshot not imported (the index is unchanged): ${errorText(err)}`;
      document.body.dataset.snapshot = 'error';
    } finally {
      setBusy(false);
      snapshotFile.value = '';
    }
  });
  $('#reset').addEventListener('click', () => store.reset());

  // Another tab or window may have committed while this one was hidden.
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible' && !store.busy) store.refresh().catch(() => {});
  });
  // "/" returns to the search box from anywhere but a text field.
  document.addEventListener('keydown', (e) => {
    if (e.key !== '/' || e.ctrlKey || e.metaKey || e.altKey) return;
    if ((e.target instanceof Element && e.target.closest('input, textarea, select, [contenteditable]')) || $('#detail', HTMLDialogElement).open) return;
    e.preventDefault();
    $('#q').focus();
  });

  $('#load-bulk').textContent = `Load ${num(BULK_COUNT)} memories`;
  renderFacets();
  renderAddForm();
  panel.update();
  setBusy(false);
  const q = $('#q', HTMLInputElement);
  q.disabled = false;
  q.focus();
  search.run();
  document.body.dataset.ready = 'true';

  enableOffline().then(
    (cached) => {
      $('[data-stat="offline"]').textContent = cached === null ? 'not available here' : `ready: ${cached} files cached`;
      if (cached !== null) document.body.dataset.offline = 'ready';
    },
    (err) => {
      $('[data-stat="offline"]').textContent = `not available: ${errorText(err)}`;
    },
  );
}

main().catch((err) => {
  $('#status').textContent = `Failed to start: ${errorText(err)}`;
  document.body.dataset.ready = 'error';
  console.error(err);
});
