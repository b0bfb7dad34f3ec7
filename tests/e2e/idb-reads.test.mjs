// indexedDBStorage in Chromium: `get`s called together share one readonly
// transaction (at most 64 each), awaited ones do not wait for others, and a
// failed shared transaction rejects every read in it with STORAGE naming its
// own key, the adapter usable after. Transactions are counted by wrapping
// the real IDBDatabase.prototype.transaction.
/* global indexedDBStorage -- set on the page (window.indexedDBStorage) for page.evaluate */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { memdexPage, readyPage, useChromium } from './browser.mjs';

const PAGE = memdexPage('memdex idb reads', ['Memdex'], "import { indexedDBStorage } from '/pkg/storage/indexeddb.js';\nwindow.indexedDBStorage = indexedDBStorage;");

const chromium = useChromium();

test('indexedDBStorage: gets called together read in one transaction; a failed one rejects each read with its key', async () => {
  const { page, errors } = await readyPage(chromium.env, PAGE);
  const report = await page.evaluate(async () => {
    const storage = indexedDBStorage({ database: 'idb-reads' });
    const keys = Array.from({ length: 100 }, (_, i) => `k${i}`);
    for (const k of keys) await storage.put(k, new TextEncoder().encode('value of ' + k));
    const realTransaction = IDBDatabase.prototype.transaction;
    const modes = [];
    IDBDatabase.prototype.transaction = function (...args) {
      modes.push(args[1] ?? 'readonly');
      return realTransaction.apply(this, args);
    };
    const text = (v) => (v === null ? null : new TextDecoder().decode(v));
    const counted = async (work) => {
      modes.length = 0;
      const out = await work();
      return { out, transactions: [...modes] };
    };
    const together = await counted(async () => (await Promise.all([...keys.slice(0, 15), 'absent'].map((k) => storage.get(k)))).map(text));
    const many = await counted(async () => (await Promise.all(keys.map((k) => storage.get(k)))).map(text));
    const oneByOne = await counted(async () => [text(await storage.get('k1')), text(await storage.get('k2'))]);
    // One read of a shared transaction throws: the transaction aborts and
    // every read in it fails, each naming its key.
    const realGet = IDBObjectStore.prototype.get;
    IDBObjectStore.prototype.get = function (key) {
      if (key === 'k7') throw new DOMException('injected', 'UnknownError');
      return realGet.call(this, key);
    };
    const failed = await Promise.allSettled(['k6', 'k7', 'k8'].map((k) => storage.get(k)));
    IDBObjectStore.prototype.get = realGet;
    const after = text(await storage.get('k7'));
    IDBDatabase.prototype.transaction = realTransaction;
    await storage.deleteDatabase();
    return {
      together,
      many: { sameValues: many.out.every((v, i) => v === 'value of ' + keys[i]), transactions: many.transactions },
      oneByOne,
      failed: failed.map((r) => (r.status === 'rejected' ? { code: r.reason.code, key: r.reason.key, message: r.reason.message } : { value: text(r.value) })),
      after,
    };
  });
  assert.deepEqual(report.together.out, [...Array.from({ length: 15 }, (_, i) => `value of k${i}`), null]);
  assert.deepEqual(report.together.transactions, ['readonly'], 'sixteen gets called together: one transaction');
  assert.equal(report.many.sameValues, true);
  assert.deepEqual(report.many.transactions, ['readonly', 'readonly'], 'a hundred gets: transactions of at most 64');
  assert.deepEqual(report.oneByOne.out, ['value of k1', 'value of k2']);
  assert.equal(report.oneByOne.transactions.length, 2, 'an awaited get is read alone, without waiting');
  assert.deepEqual(
    report.failed.map((f) => [f.code, f.key]),
    [
      ['STORAGE', 'k6'],
      ['STORAGE', 'k7'],
      ['STORAGE', 'k8'],
    ],
  );
  assert.match(report.failed[0].message, /get\("k6"\) failed: .*injected/);
  assert.equal(report.after, 'value of k7', 'the adapter reads again after a failed transaction');
  assert.deepEqual(errors, []);
});
