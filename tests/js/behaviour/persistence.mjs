// Behaviour suite, persistence: export/import, commit and reopen, links
// across commits and compaction, stored schemas, autoCommit, close, two
// writers on one storage.
import { MEMORIES, sleep } from './common.mjs';

/** Registers this area's cases on the context suiteContext() made. */
export function definePersistence({ Memdex, makeStorage, assert, t, expectCode, fresh }) {
  t('export / import round trip', async () => {
    const index = await fresh({ schema: { title: { type: 'text', weight: 3 }, text: { type: 'text' }, kind: { type: 'keyword' }, timestamp: { type: 'date' } } });
    const bytes = index.export();
    assert.ok(bytes instanceof Uint8Array && bytes.length > 100);
    await index.close();
    const copy = await Memdex.import(bytes);
    assert.equal(copy.size, MEMORIES.length);
    assert.equal(copy.search('billing').hits[0].id, 'm2');
    assert.equal(copy.count({ kind: 'rule' }), 2);
    await expectCode(Memdex.import(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9])), ['CORRUPT', 'VERSION']);
    await copy.close();
  });

  t('commit, then reopen from the same storage', async () => {
    const storage = makeStorage();
    const a = await Memdex.open({ name: 'notes', storage, autoCommit: false });
    assert.equal(a.generation, 0);
    a.addAll(MEMORIES);
    assert.equal(a.dirty, true);
    const info = await a.commit();
    assert.equal(info.generation, 1);
    assert.ok(info.blobsWritten >= 2 && info.bytesWritten > 0);
    assert.equal(a.dirty, false);
    a.add({ id: 'm6', title: 'Quokka sighting', text: 'A quokka was seen near the server room.' });
    const second = await a.commit();
    assert.equal(second.generation, 2);
    assert.ok(second.bytesWritten < info.bytesWritten * 4, 'incremental');
    await a.close();

    const b = await Memdex.open({ name: 'notes', storage });
    assert.equal(b.generation, 2);
    assert.equal(b.size, MEMORIES.length + 1);
    assert.equal(b.search('quokka').hits[0].id, 'm6');
    assert.equal(b.search('deploy friday').hits[0].id, 'm1');
    // Another name in the same storage is another index.
    const other = await Memdex.open({ name: 'other', storage });
    assert.equal(other.size, 0);
    await other.close();
    await b.close();
  });

  t('links persist: expand and related after commit, compaction and reopen', async () => {
    const storage = makeStorage();
    const a = await Memdex.open({ name: 'links', storage, autoCommit: false });
    a.add({ id: 'db', title: 'Database is Postgres', text: 'billing moved', links: [{ type: 'SUPERSEDES', to: 'db-old' }] });
    a.add({ id: 'db-old', title: 'Database was MySQL', text: 'replaced' });
    await a.commit();
    a.add({ id: 'api', title: 'Billing API', text: 'reads invoices', links: [{ type: 'DEPENDS_ON', to: 'db' }] });
    await a.commit();
    a.compact();
    await a.commit();
    await a.close();
    const b = await Memdex.open({ name: 'links', storage, autoCommit: false });
    assert.deepEqual(b.get('api').links, [{ to: 'db', type: 'DEPENDS_ON' }]); // stored objects read back with sorted keys
    const hits = b.search('postgres', { expand: { direction: 'both' } }).hits;
    assert.deepEqual(hits.map((h) => h.id), ['db', 'api', 'db-old']);
    assert.deepEqual(hits[1].via, { from: 'db', type: 'DEPENDS_ON', hops: 1 });
    assert.deepEqual(b.related('db-old', { direction: 'in', hops: 2 }).map((h) => h.id), ['db', 'api']);
    await b.close();
  });

  t('a schema change that cannot apply in place is a SCHEMA error; a new field upgrades', async () => {
    const storage = makeStorage();
    const a = await Memdex.open({ name: 's', storage, schema: { body: { type: 'text' } } });
    a.add({ id: '1', body: 'hello world' });
    await a.commit();
    await a.close();
    await expectCode(Memdex.open({ name: 's', storage, schema: { body: { type: 'keyword' } } }), 'SCHEMA');
    const wider = await Memdex.open({ name: 's', storage, schema: { other: { type: 'text' } } });
    assert.equal(wider.search('hello').hits[0].id, '1');
    wider.free(); // never committed: the stored schema stays
    const b = await Memdex.open({ name: 's', storage }); // stored schema
    assert.equal(b.search('hello').hits[0].id, '1');
    await b.close();
    const same = await Memdex.open({ name: 's', storage, schema: { body: { type: 'text' } } });
    assert.equal(same.size, 1);
    await same.close();
    await expectCode(Memdex.open({ name: 's', storage, language: 'german' }), 'SCHEMA');
  });

  t('autoCommit: after a quiet period, and after maxWrites', async () => {
    const storage = makeStorage();
    const a = await Memdex.open({ name: 'auto', storage, autoCommit: { delayMs: 30, maxWrites: 1000 } });
    a.add(MEMORIES[0]);
    let info = await Memdex.open({ name: 'auto', storage });
    assert.equal(info.size, 0, 'not committed yet');
    await info.close();
    for (let i = 0; i < 100 && a.dirty; i++) await sleep(20);
    assert.equal(a.dirty, false);
    info = await Memdex.open({ name: 'auto', storage });
    assert.equal(info.size, 1);
    await info.close();
    await a.close();

    const b = await Memdex.open({ name: 'auto2', storage, autoCommit: { delayMs: 60_000, maxWrites: 3 } });
    b.addAll(MEMORIES.slice(0, 3));
    for (let i = 0; i < 100 && b.generation === 0; i++) await sleep(20);
    assert.equal(b.generation, 1);
    await b.close();
  });

  t('close commits pending writes; later calls throw CLOSED', async () => {
    const storage = makeStorage();
    const a = await Memdex.open({ name: 'c', storage, autoCommit: { delayMs: 60_000 } });
    a.add(MEMORIES[1]);
    await a.close();
    assert.equal(a.closed, true);
    await a.close(); // idempotent
    await expectCode(() => a.search('x'), 'CLOSED');
    await expectCode(() => a.add(MEMORIES[0]), 'CLOSED');
    await expectCode(() => a.commit(), 'CLOSED');
    const b = await Memdex.open({ name: 'c', storage });
    assert.equal(b.get('m2').kind, 'decision');
    await b.close();
  });

  t('two writers: the second commit is a CONFLICT; reload() picks up the other', async () => {
    const storage = makeStorage();
    const a = await Memdex.open({ name: 'w', storage, autoCommit: false });
    const b = await Memdex.open({ name: 'w', storage, autoCommit: false });
    a.add(MEMORIES[0]);
    await a.commit();
    b.add(MEMORIES[1]);
    await expectCode(b.commit(), 'CONFLICT');
    assert.equal(await b.reload(), true);
    assert.equal(b.get('m1').id, 'm1');
    assert.equal(b.get('m2'), undefined, 'uncommitted writes are dropped by reload');
    b.add(MEMORIES[1]);
    assert.equal((await b.commit()).generation, 2);
    await a.close();
    await b.close();
  });
}
