// The browser entry's two wasm files in headless Chromium (languages.js):
// a page whose indexes are all English fetches memdex-english_bg.wasm
// only; one that opens an index in another language fetches
// memdex_bg.wasm, directly when the open names the language, after the
// English wasm refused it when a stored index (whole, lazy, imported, in a
// worker) is opened without saying so. The switch is refused with USAGE
// while an index opened whole is open, which keeps answering.
// Every page is a new browser context (no shared IndexedDB or HTTP cache):
// the stored French index travels from page to page as its blobs.
/* global Memdex, MemdexError, memoryStorage, indexedDBStorage -- set on the page (window.Memdex) for page.evaluate */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { memdexPage, readyPage, useChromium } from './browser.mjs';

const chromium = useChromium();
const PAGE = memdexPage(
  'memdex languages',
  ['Memdex', 'MemdexError', 'memoryStorage'],
  "import { indexedDBStorage } from '/pkg/storage/indexeddb.js';\nwindow.indexedDBStorage = indexedDBStorage;",
);
const DATABASE = `memdex-languages-${Date.now().toString(36)}`;
const ENGLISH = '/pkg/memdex-english_bg.wasm';
const ALL = '/pkg/memdex_bg.wasm';

/**
 * A fresh page (a new realm) running `fn(arg)`; resolves to its result
 * and the wasm files the page and its workers fetched, in order.
 * @template T
 * @param {(arg: any) => Promise<T>} fn
 * @param {unknown} [arg]
 */
async function inPage(fn, arg) {
  const { page, errors } = await readyPage(chromium.env, PAGE);
  const wasm = [];
  page.context().on('request', (r) => {
    if (r.url().endsWith('.wasm')) wasm.push(new URL(r.url()).pathname);
  });
  try {
    const result = await page.evaluate(fn, { database: DATABASE, ...(/** @type {object} */ (arg) ?? {}) });
    assert.deepEqual(errors.map(String), []);
    return { result, wasm };
  } finally {
    await page.close();
  }
}

/** French documents: `cheval` finds `chevaux` only with French stemming. */
const FRENCH = [
  { id: 'f1', title: 'Écurie', text: 'les chevaux mangent du foin' },
  { id: 'f2', title: 'Cuisine', text: 'une soupe aux légumes' },
];

test('English indexes only: the page and its worker fetch memdex-english_bg.wasm and nothing else', async () => {
  const { result, wasm } = await inPage(async () => {
    const index = await Memdex.create();
    index.add({ id: 'a', text: 'deploying on fridays' });
    const main = index.search('deploy friday').hits.map((h) => h.id);
    await index.close();
    const remote = await Memdex.openInWorker();
    await remote.add({ id: 'w', text: 'running tests' });
    const worker = (await remote.search('run test')).hits.map((h) => h.id);
    await remote.close();
    return { main, worker };
  });
  assert.deepEqual(result, { main: ['a'], worker: ['w'] });
  assert.ok(wasm.length >= 2, `page and worker each fetched a wasm: ${wasm}`);
  assert.deepEqual([...new Set(wasm)], [ENGLISH]);
});

/** `export()` of the French index, for the import case. @type {number[]} */
let snapshot = [];
/** The French index's blobs: [key, bytes] (put back into a page's storage). @type {[string, number[]][]} */
let blobs = [];

test('a first open naming French fetches memdex_bg.wasm only, and stores the French index', async () => {
  const { result, wasm } = await inPage(
    async ({ docs }) => {
      const storage = memoryStorage();
      const index = await Memdex.open({ storage, name: 'fr', language: 'french', autoCommit: false });
      index.addAll(docs);
      await index.commit();
      const hits = index.search('cheval').hits.map((h) => h.id);
      const snapshot = Array.from(index.export());
      await index.close();
      const blobs = [];
      for (const key of await storage.list('')) blobs.push([key, Array.from(/** @type {Uint8Array} */ (await storage.get(key)))]);
      return { hits, snapshot, blobs };
    },
    { docs: FRENCH },
  );
  assert.deepEqual(result.hits, ['f1']);
  assert.deepEqual(wasm, [ALL]);
  assert.ok(result.blobs.length >= 2, 'a manifest and a segment at least');
  ({ snapshot, blobs } = result);
});

test('a stored French index opened without its language: English first, then memdex_bg.wasm, whole and lazy alike', async () => {
  for (const lazy of [false, true]) {
    const { result, wasm } = await inPage(
      async ({ blobs, lazy }) => {
        const storage = memoryStorage();
        for (const [key, bytes] of blobs) await storage.put(key, new Uint8Array(bytes));
        const index = await Memdex.open({ storage, name: 'fr', lazy });
        const hits = (await index.search('cheval')).hits.map((h) => h.id);
        // The page now runs every language: an English index opens in it.
        const english = await Memdex.create();
        english.add({ id: 'e', text: 'horses eat hay' });
        const englishHits = english.search('horse').hits.map((h) => h.id);
        await english.close();
        await index.close();
        return { hits, englishHits };
      },
      { blobs, lazy },
    );
    assert.deepEqual(result, { hits: ['f1'], englishHits: ['e'] }, `lazy: ${lazy}`);
    assert.deepEqual(wasm, [ENGLISH, ALL], `lazy: ${lazy}`);
  }
});

test('Memdex.import of a French snapshot and openInWorker of the French index switch too', async () => {
  const { result, wasm } = await inPage(
    async ({ database, bytes, blobs }) => {
      const stored = indexedDBStorage({ database });
      for (const [key, value] of blobs) await stored.put(key, new Uint8Array(value));
      const imported = await Memdex.import(new Uint8Array(bytes));
      const hits = imported.search('cheval').hits.map((h) => h.id);
      await imported.close();
      const remote = await Memdex.openInWorker({ storage: 'indexeddb', database, name: 'fr' });
      const worker = (await remote.search('cheval')).hits.map((h) => h.id);
      await remote.close();
      return { hits, worker };
    },
    { bytes: snapshot, blobs },
  );
  assert.deepEqual(result, { hits: ['f1'], worker: ['f1'] });
  // The page: English, then every language; its worker (a realm of its own): the same.
  assert.deepEqual(wasm, [ENGLISH, ALL, ENGLISH, ALL]);
});

test('with an English index open whole, a French open is USAGE naming it; the English index keeps answering; once closed, the French one opens', async () => {
  const { result, wasm } = await inPage(async ({ blobs }) => {
    const storage = memoryStorage();
    for (const [key, bytes] of blobs) await storage.put(key, new Uint8Array(bytes));
    const english = await Memdex.open({ storage, name: 'en' });
    english.add({ id: 'e', text: 'horses eat hay' });
    const refusals = [];
    for (const open of [() => Memdex.open({ storage, name: 'fr' }), () => Memdex.create({ language: 'french' })]) {
      try {
        await open();
        refusals.push(null);
      } catch (e) {
        refusals.push({ isMemdexError: e instanceof MemdexError, code: e.code, message: e.message });
      }
    }
    const still = english.search('horse').hits.map((h) => h.id);
    await english.close();
    const french = await Memdex.open({ storage, name: 'fr' });
    const hits = french.search('cheval').hits.map((h) => h.id);
    await french.close();
    return { refusals, still, hits };
  }, { blobs });
  for (const r of result.refusals) {
    assert.equal(r?.isMemdexError, true);
    assert.equal(r.code, 'USAGE');
    assert.match(r.message, /needs memdex's all-languages wasm, and this page runs the English one for the indexes open here \('en'\)/);
    assert.match(r.message, /open indexes in other languages before those/);
  }
  assert.match(result.refusals[0].message, /^index 'fr' needs/);
  assert.match(result.refusals[1].message, /^language 'french' needs/);
  assert.deepEqual(result.still, ['e']);
  assert.deepEqual(result.hits, ['f1']);
  assert.deepEqual(wasm, [ENGLISH, ALL]);
});

test('a `wasm` given to open is loaded as is: the English one refuses French with SCHEMA, not a switch', async () => {
  const { result, wasm } = await inPage(async ({ blobs }) => {
    const storage = memoryStorage();
    for (const [key, bytes] of blobs) await storage.put(key, new Uint8Array(bytes));
    try {
      await Memdex.open({ storage, name: 'fr', wasm: '/pkg/memdex-english_bg.wasm' });
      return null;
    } catch (e) {
      return { code: e.code, field: e.data?.field, message: e.message };
    }
  }, { blobs });
  assert.equal(result?.code, 'SCHEMA');
  assert.equal(result.field, 'language');
  assert.match(result.message, /not in this build: French analysis needs the all-languages build/);
  assert.deepEqual(wasm, [ENGLISH]);
});

test('Memdex.migrate of an English index to French switches before it opens the source', async () => {
  const { result, wasm } = await inPage(async () => {
    const storage = memoryStorage();
    const english = await Memdex.open({ storage, name: 'notes', autoCommit: false });
    english.add({ id: 'n1', text: 'les chevaux mangent du foin' });
    await english.commit();
    const before = english.search('cheval').hits.map((h) => h.id);
    await english.close();
    const report = await Memdex.migrate({ from: { storage, name: 'notes' }, to: { name: 'notes-fr', language: 'french' } });
    const french = await Memdex.open({ storage, name: 'notes-fr' });
    const after = french.search('cheval').hits.map((h) => h.id);
    await french.close();
    return { before, documents: report.documents, after };
  });
  assert.deepEqual(result, { before: [], documents: 1, after: ['n1'] });
  assert.deepEqual(wasm, [ENGLISH, ALL]);
});

test('two opens of stored French indexes at once switch the page once and both answer', async () => {
  const { result, wasm } = await inPage(
    async ({ blobs }) => {
      const storage = memoryStorage();
      for (const [key, bytes] of blobs) await storage.put(key, new Uint8Array(bytes));
      const [whole, lazy] = await Promise.all([Memdex.open({ storage, name: 'fr' }), Memdex.open({ storage, name: 'fr', lazy: true })]);
      const hits = [whole.search('cheval').hits.map((h) => h.id), (await lazy.search('cheval')).hits.map((h) => h.id)];
      await whole.close();
      lazy.close();
      return hits;
    },
    { blobs },
  );
  assert.deepEqual(result, [['f1'], ['f1']]);
  assert.deepEqual(wasm, [ENGLISH, ALL]);
});
