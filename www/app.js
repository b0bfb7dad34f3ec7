// memdex memory explorer: the browser build of the npm package (served from
// /pkg/) keeps an index of agent memories in IndexedDB (Memdex.open with
// storage 'indexeddb'), seeds it with the sample memories on first visit, and
// searches it as you type. Added memories are committed, so they survive
// reloads.
import { Memdex, MemdexError } from './pkg/index.js';
import { indexedDBStorage } from './pkg/storage/indexeddb.js';
import { escapeHtml, highlight } from './highlight.js';

const storage = indexedDBStorage({ database: 'memdex-explorer' });
const INDEX = { name: 'explorer', storage };
const $ = (sel) => document.querySelector(sel);
const q = $('#q');
const results = $('#results');
const summary = $('#summary');

async function fetchSamples() {
  const r = await fetch('./memories.jsonl');
  if (!r.ok) throw new Error(`memories.jsonl: HTTP ${r.status}`);
  return (await r.text()).split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
}

function renderHit(hit) {
  const { title = '', text = '', kind = '' } = hit.fields;
  // Prefer engine snippets (already escaped) when present; else highlight here.
  const snippet = hit.snippets?.text ?? highlight(text, hit.matchedTerms);
  const titleHtml = hit.snippets?.title ?? highlight(title, hit.matchedTerms, { length: 1000 });
  const li = document.createElement('li');
  li.className = 'hit';
  li.dataset.id = hit.id;
  li.innerHTML = `
    <h3 class="title">${titleHtml}</h3>
    <p class="snippet">${snippet}</p>
    <p class="meta">
      <span class="namespace">${escapeHtml(hit.namespace ?? '')}</span>
      <span class="kind">${escapeHtml(String(kind))}</span>
      <span class="score" title="BM25F score">${hit.score.toFixed(3)}</span>
      <span class="terms">${hit.matchedTerms.map(escapeHtml).join(', ')}</span>
    </p>`;
  return li;
}

function search(index) {
  const query = q.value.trim();
  const namespace = $('#namespace').value;
  results.replaceChildren();
  if (!query) {
    summary.textContent = '';
    return;
  }
  const start = performance.now();
  let hits;
  let mode;
  try {
    ({ hits, mode } = index.search(query, {
      mode: $('#mode').value,
      limit: 20,
      filter: namespace ? { namespace } : undefined,
      highlight: { snippetLength: 200 },
    }));
  } catch (err) {
    summary.textContent = err instanceof MemdexError ? `${err.code}: ${err.message}` : String(err);
    return;
  }
  const ms = performance.now() - start;
  summary.textContent = `${hits.length} result${hits.length === 1 ? '' : 's'} (${mode}) in ${ms.toFixed(2)} ms`;
  results.append(...hits.map(renderHit));
}

async function main() {
  const t0 = performance.now();
  const [index, samples] = await Promise.all([Memdex.open(INDEX), fetchSamples()]);
  // First visit (nothing committed yet): index the samples and commit them.
  if (index.generation === 0) {
    await index.addMany(samples);
    await index.commit();
  }

  const namespaces = new Set(samples.map((m) => m.namespace).filter(Boolean));
  namespaces.add('user:me');
  const refreshNamespaces = () => {
    const select = $('#namespace');
    const listed = new Set([...select.options].map((o) => o.value));
    for (const ns of [...namespaces].sort()) {
      if (!listed.has(ns) && index.count({ namespace: ns }) > 0) select.append(new Option(ns, ns));
    }
  };
  refreshNamespaces();

  const run = () => search(index);
  q.addEventListener('input', run);
  $('#mode').addEventListener('change', run);
  $('#namespace').addEventListener('change', run);
  $('#search-form').addEventListener('submit', (e) => {
    e.preventDefault();
    run();
  });

  $('#add-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const form = new FormData(e.target);
    const doc = {
      id: `user-${Date.now().toString(36)}`,
      namespace: form.get('namespace') || undefined,
      kind: form.get('kind'),
      title: form.get('title'),
      text: form.get('text'),
      timestamp: new Date().toISOString(),
    };
    try {
      index.add(doc);
    } catch (err) {
      $('#add-status').textContent = err instanceof MemdexError ? `${err.code}: ${err.message}` : String(err);
      return;
    }
    $('#add-status').textContent = `Added “${doc.title}”; saving…`;
    if (doc.namespace) namespaces.add(doc.namespace);
    refreshNamespaces();
    e.target.reset();
    updateStatus();
    run();
    // Auto-commit would save it within a second; commit now so a reload
    // right after adding still finds it.
    index.commit().then(
      (info) => {
        $('#add-status').textContent = `Added “${doc.title}” (saved: commit ${info.generation}, ${info.bytesWritten} bytes).`;
        document.body.dataset.saved = String(info.generation);
      },
      (err) => {
        $('#add-status').textContent = `Added, but saving failed: ${err.code ?? ''} ${err.message}`;
      },
    );
  });

  $('#reset').addEventListener('click', async () => {
    index.free(); // close without committing
    await storage.deleteDatabase();
    location.reload();
  });

  const updateStatus = () => {
    $('#status').textContent = `${index.stats().documents} memories indexed in your browser by memdex (Rust → WebAssembly).`;
  };
  updateStatus();
  $('#status').title = `loaded in ${(performance.now() - t0).toFixed(0)} ms`;
  q.disabled = false;
  $('#add-form button').disabled = false;
  q.focus();
  document.body.dataset.ready = 'true';
  if (q.value) run();
}

main().catch((err) => {
  $('#status').textContent = `Failed to start: ${err.message}`;
  document.body.dataset.ready = 'error';
  console.error(err);
});
