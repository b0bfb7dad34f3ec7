// Schema changes in headless Chromium on real IndexedDB (issue 29,
// acceptance 3): an index committed to IndexedDB opens with an extended
// schema (a keyword field, a changed weight, a vector field), keeps every
// document and its results, gains the new fields on the next write and
// after a reopen (also through openInWorker); Memdex.migrate rebuilds it
// under a new analyzer in place.
/* global Memdex */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { memdexPage, readyPage, useChromium } from './browser.mjs';

const PAGE = memdexPage('memdex schema upgrade');

const chromium = useChromium();

test('IndexedDB: an extended schema upgrades in place, openInWorker sees it, migrate rebuilds under a new analyzer', async () => {
  const { page, errors } = await readyPage(chromium.env, PAGE);
  const out = await page.evaluate(async () => {
    const base = { name: `upgrade-${Date.now()}`, storage: 'indexeddb', autoCommit: false };
    const ids = ['d0', 'd1', 'd2', 'd3'];
    const texts = ['never deploy on fridays', 'deploys wait for monday', 'dark mode in the editor', 'backups restored weekly'];
    const a = await Memdex.open({ ...base, schema: { emb: { type: 'vector', dimensions: 2 } } });
    texts.forEach((text, i) => a.add({ id: ids[i], title: `note ${i}`, text, emb: [1, i], links: [{ type: 'NEXT', to: ids[(i + 1) % 4] }] }));
    await a.commit();
    a.add({ id: 'd4', text: 'flushed later deploy' });
    await a.commit(); // two segments
    const probe = (index) => ({
      text: index.search('deploy', { fields: { text: 1 } }).hits.map((h) => [h.id, h.score]),
      vector: index.search('', { vector: [1, 2], vectorField: 'emb' }).hits.map((h) => [h.id, h.score]),
      docs: [...ids, 'd4'].map((id) => index.get(id, { vectors: true })),
      titled: index.search('note').hits.map((h) => h.score)[0],
      texted: index.search('fridays').hits.map((h) => h.score)[0],
    });
    const before = probe(a);
    await a.close();

    const extended = { area: 'keyword', title: { type: 'text', weight: 3 }, a_vec: { type: 'vector', dimensions: 3 } };
    const b = await Memdex.open({ ...base, schema: { emb: { type: 'vector', dimensions: 2 }, ...extended } });
    const upgraded = probe(b);
    b.add({ id: 'n1', text: 'new memory', area: 'ops', a_vec: [1, 0, 0] });
    await b.commit();
    await b.close();

    const c = await Memdex.open(base);
    const reopened = { area: c.search('', { filter: { area: 'ops' } }).hits.map((h) => h.id), near: c.search('', { vector: [1, 0, 0], vectorField: 'a_vec' }).hits.map((h) => h.id) };
    c.remove('n1');
    const same = probe(c);
    c.free();

    const w = await Memdex.openInWorker({ ...base, schema: { pinned: 'boolean' } });
    await w.add({ id: 'n2', text: 'pinned memory', pinned: true, area: 'ops' });
    await w.commit();
    await w.close();
    const d = await Memdex.open(base);
    const pinned = d.search('', { filter: { pinned: true, area: 'ops' } }).hits.map((h) => h.id);
    const stemmed = d.search('deploys').hits.length;
    d.free();

    const refused = await Memdex.open({ ...base, language: 'none' }).catch((e) => ({ code: e.code, change: e.data?.change }));
    const migrated = await Memdex.migrate({ from: { storage: 'indexeddb', name: base.name }, to: { language: 'none' } });
    const e = await Memdex.open({ ...base, language: 'none' });
    const after = { size: e.size, deploys: e.search('deploys').hits.map((h) => h.id), docs: [...ids, 'd4'].map((id) => e.get(id, { vectors: true })) };
    e.free();
    return { before, upgraded, reopened, same, pinned, stemmed, refused, migrated, after };
  });
  const { before: was, upgraded, reopened, same, pinned, stemmed, refused, migrated, after: now } = out;
  assert.deepEqual(upgraded.text, was.text, 'same ids and scores over the old fields');
  assert.deepEqual(upgraded.vector, was.vector);
  assert.deepEqual(upgraded.docs, was.docs, 'every document keeps its fields, vectors and links');
  // Weights are relative (scaled by the heaviest): title 2 -> 3 keeps a
  // title-only match's score and lowers text's share from 1/2 to 1/3.
  assert.equal(upgraded.titled, was.titled, 'the heaviest field still weighs 1');
  assert.ok(upgraded.texted < was.texted, `the title weight 3 applies: text's share fell (${upgraded.texted} < ${was.texted})`);
  assert.deepEqual(reopened, { area: ['n1'], near: ['n1'] });
  assert.deepEqual({ ...same, titled: 0, texted: 0 }, { ...upgraded, titled: 0, texted: 0 });
  assert.deepEqual(pinned, ['n2']);
  assert.equal(stemmed, 3, 'english stems deploys (d0, d1, d4)');
  assert.deepEqual(refused, { code: 'SCHEMA', change: 'analyzer' });
  assert.equal(migrated.documents, 7);
  assert.equal(now.size, 7);
  assert.deepEqual(now.deploys, ['d1'], 'no stemming after the migration');
  assert.deepEqual(now.docs, was.docs);
  assert.deepEqual(errors.map(String), []);
  await page.close();
});
