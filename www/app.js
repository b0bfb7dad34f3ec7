// memdex memory explorer: the browser build of the npm package (served from
// /pkg/) indexes sample agent memories and searches them as you type.
import { Memdex, MemdexError } from './pkg/index.js';
import { escapeHtml, highlight } from './highlight.js';

const STORAGE_KEY = 'memdex-explorer-added';
const $ = (sel) => document.querySelector(sel);
const q = $('#q');
const results = $('#results');
const summary = $('#summary');

function savedMemories() {
  try {
    return JSON.parse(localStorage.getItem(STORAGE_KEY) ?? '[]');
  } catch {
    return [];
  }
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
    ({ hits, mode } = index.search(query, { mode: $('#mode').value, limit: namespace ? 100 : 20 }));
  } catch (err) {
    summary.textContent = err instanceof MemdexError ? `${err.code}: ${err.message}` : String(err);
    return;
  }
  if (namespace) hits = hits.filter((h) => h.namespace === namespace).slice(0, 20);
  const ms = performance.now() - start;
  summary.textContent = `${hits.length} result${hits.length === 1 ? '' : 's'} (${mode}) in ${ms.toFixed(2)} ms`;
  results.append(...hits.map(renderHit));
}

async function main() {
  const t0 = performance.now();
  const [index, jsonl] = await Promise.all([
    Memdex.create(),
    fetch('./memories.jsonl').then((r) => {
      if (!r.ok) throw new Error(`memories.jsonl: HTTP ${r.status}`);
      return r.text();
    }),
  ]);
  const memories = jsonl.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
  index.addAll(memories);
  index.addAll(savedMemories());

  const namespaces = [...new Set([...memories, ...savedMemories()].map((m) => m.namespace).filter(Boolean))].sort();
  for (const ns of namespaces) $('#namespace').append(new Option(ns, ns));

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
    localStorage.setItem(STORAGE_KEY, JSON.stringify([...savedMemories(), doc]));
    $('#add-status').textContent = `Added “${doc.title}”.`;
    e.target.reset();
    updateStatus();
    run();
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
