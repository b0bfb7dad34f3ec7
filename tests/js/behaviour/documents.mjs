// Behaviour suite, adding documents and declaring fields: addMany, schema
// shorthands and defaultSchema, Date values, field:value on keyword fields,
// namespace prefix filters, documents without an id.
import { MEMORIES } from './common.mjs';

/** Registers this area's cases on the context suiteContext() made. */
export function defineDocuments({ Memdex, MemdexError, makeStorage, assert, t, expectCode, fresh }) {
  t('addMany: async iterable, batches, progress', async () => {
    const index = await Memdex.open({ storage: makeStorage() });
    async function* gen() {
      for (let i = 0; i < 2500; i++) yield { id: `g${i}`, title: `note ${i}`, text: i % 100 === 0 ? 'rare zebra' : 'common words here' };
    }
    const progress = [];
    const n = await index.addMany(gen(), { batchSize: 1000, onProgress: (p) => progress.push(p.added) });
    assert.equal(n, 2500);
    assert.deepEqual(progress, [1000, 2000, 2500]);
    assert.equal(index.search('zebra', { limit: 100 }).hits.length, 25);
    assert.equal(await index.addMany(MEMORIES), MEMORIES.length);
    assert.equal(index.stats().documents, 2500 + MEMORIES.length);
    await expectCode(index.addMany(42), 'USAGE');
    await index.close();
  });

  t('addMany stops at the first rejected document, names it, and keeps the ones before it', async () => {
    const index = await fresh();
    const before = index.count();
    const docs = (bad) => [
      { id: 'k1', text: 'kept alpha' }, { id: 'k2', text: 'kept beta' }, { id: 'k3', text: 'kept gamma' }, bad,
      { id: 'after', text: 'never reached' },
    ];
    // Rejected by the engine (wrong type), the JS checks (no id) and a size
    // limit; in the first batch, mid-batch and at a batch boundary.
    const cases = [
      [{ id: 'bad', text: 42 }, 'SCHEMA', 1000],
      [{ id: 'bad', text: 42 }, 'SCHEMA', 2],
      [{ text: 'no id' }, 'SCHEMA', 1000],
      [{ id: 'bad', text: 'x'.repeat(17 * 1024 * 1024) }, 'LIMIT', 3],
    ];
    for (const [bad, code, batchSize, method = 'addMany'] of [...cases, ...cases.map((c) => [...c.slice(0, 2), 1000, 'addAll'])]) {
      const err =
        method === 'addAll'
          ? (() => { try { index.addAll(docs(bad)); } catch (e) { return e; } return null; })()
          : await index.addMany(docs(bad), { batchSize }).then(() => null, (e) => e);
      assert.ok(err instanceof MemdexError, String(err));
      assert.equal(err.code, code, err.message);
      assert.equal(err.added, 3, err.message);
      assert.ok(err.message.startsWith(`${method} stopped at document 4 `), err.message);
      if (bad.id) assert.match(err.message, /"bad"/);
      for (const id of ['k1', 'k2', 'k3']) assert.equal(index.get(id)?.id, id, `${id} kept (batch ${batchSize})`);
      assert.equal(index.get('after'), undefined);
      assert.equal(index.get('bad'), undefined);
      assert.equal(index.count(), before + 3);
    }
    assert.equal(index.search('kept').hits.length, 3);
    await index.close();
  });

  t('schema adds to the default fields; type names as shorthands; defaultSchema: false for none', async () => {
    const index = await Memdex.open({ storage: makeStorage(), autoCommit: false, schema: { priority: 'number', pinned: 'boolean', due: 'date', raw: 'stored', summary: 'text', owner: 'keyword' } });
    index.add({ id: 'a', title: 'Rotate keys', kind: 'rule', tags: ['security'], priority: 1, pinned: true, due: '2026-04-01', raw: { x: 1 }, summary: 'quarterly rotation', owner: 'ops' });
    assert.equal(index.count({ kind: 'rule', tags: 'security', priority: { lte: 2 }, pinned: true, owner: 'ops' }), 1);
    assert.deepEqual(index.search('quarterly').hits.map((h) => h.id), ['a']);
    assert.deepEqual(index.get('a').raw, { x: 1 });
    // A default field redeclared is replaced (here: title no longer text).
    const replaced = await Memdex.open({ storage: makeStorage(), autoCommit: false, schema: { title: 'stored' } });
    replaced.add({ id: 'b', title: 'not searchable', text: 'searchable words' });
    assert.equal(replaced.search('searchable').hits.length, 1);
    assert.equal(replaced.search('not').hits.length, 0);
    // Only the declared fields.
    const own = await Memdex.open({ storage: makeStorage(), autoCommit: false, schema: { body: 'text' }, defaultSchema: false });
    own.add({ id: 'c', body: 'hello' });
    const undeclared = await expectCode(() => own.add({ id: 'd', body: 'x', kind: 'rule' }), 'SCHEMA');
    assert.match(undeclared.message, /`kind`: is not declared in the schema; declare it when the index is created/);
    assert.ok(!/`fields`/.test(undeclared.message), undeclared.message);
    // Errors name the option path, not an internal name.
    const typo = await expectCode(Memdex.open({ storage: makeStorage(), schema: { tags: 'keywrd' } }), 'SCHEMA');
    assert.match(typo.message, /`schema\.tags\.type`: unknown variant `keywrd`/);
    assert.ok(!/config/.test(typo.message), typo.message);
    const weight = await expectCode(Memdex.open({ storage: makeStorage(), schema: { title: { type: 'keyword', weight: 2 } } }), 'SCHEMA');
    assert.match(weight.message, /unknown field `schema\.title\.weight`/);
    const none = await expectCode(Memdex.open({ storage: makeStorage(), schema: { n: 'number' }, defaultSchema: false }), 'SCHEMA');
    assert.match(none.message, /declare at least one text field/);
    await expectCode(Memdex.open({ storage: makeStorage(), defaultSchema: false }), 'SCHEMA');
    for (const ix of [index, replaced, own]) await ix.close();
  });

  t('an index created with a whole schema reopens with that schema', async () => {
    const storage = makeStorage();
    const old = await Memdex.open({ name: 'w', storage, autoCommit: false, schema: { body: 'text' }, defaultSchema: false });
    old.add({ id: 'a', body: 'kept' });
    await old.close();
    // As an app written before `schema` extended the defaults opens it.
    const again = await Memdex.open({ name: 'w', storage, autoCommit: false, schema: { body: { type: 'text' } } });
    assert.equal(again.search('kept').hits.length, 1);
    await again.close();
    await expectCode(Memdex.open({ name: 'w', storage, schema: { body: 'keyword' } }), 'SCHEMA');
  });

  t('Date objects work wherever a date does: documents and filters', async () => {
    const index = await Memdex.open({ storage: makeStorage(), autoCommit: false });
    index.add({ id: 'a', text: 'memory', timestamp: new Date('2026-03-15T12:30:00Z') });
    await index.addMany([{ id: 'b', text: 'memory', timestamp: new Date('2026-03-16T08:00:00Z') }]);
    assert.equal(index.get('a').timestamp, '2026-03-15T12:30:00.000Z');
    assert.equal(index.count({ timestamp: { gte: new Date('2026-03-15T12:00:00Z') } }), 2);
    assert.equal(index.count({ timestamp: { lt: new Date('2026-03-16T00:00:00Z') } }), 1);
    assert.equal(index.count({ timestamp: { lte: '2026-03-15' } }), 1, 'a date-only bound covers its day');
    assert.deepEqual(index.search('memory', { filter: { timestamp: { gt: new Date('2026-03-15T13:00:00Z') } } }).hits.map((h) => h.id), ['b']);
    assert.equal(index.removeWhere({ timestamp: { lte: new Date('2026-03-15T23:00:00Z') } }), 1);
    // An invalid Date is an error, never a silently dropped value.
    const bad = await expectCode(() => index.add({ id: 'c', text: 'x', timestamp: new Date('not a date') }), 'SCHEMA');
    assert.match(bad.message, /`timestamp`: an invalid Date is not a date/);
    await expectCode(() => index.count({ timestamp: { gte: new Date('nope') } }), 'USAGE');
    await expectCode(() => index.search('memory', { filter: { timestamp: new Date('nope') } }), 'USAGE');
    await expectCode(() => index.removeWhere({ timestamp: { lt: new Date('nope') } }), 'USAGE');
    await index.close();
  });

  t('lenient field:value on a keyword or boolean field is that filter, and results say so', async () => {
    const index = await fresh({ schema: { pinned: 'boolean', priority: 'number' } });
    index.add({ id: 'p1', text: 'pinned rule about deploys', kind: 'rule', tags: ['security'], pinned: true });
    const r = index.search('deploy kind:rule');
    assert.deepEqual(r.hits.map((h) => h.id).sort(), ['m1', 'p1']);
    assert.deepEqual(r.warnings, ["`kind` is a keyword field: `kind:rule` was applied as the filter { kind: 'rule' }"]);
    assert.deepEqual(index.search('tags:security').hits.map((h) => h.id), ['p1']);
    assert.deepEqual(index.search('pinned:true').hits.map((h) => h.id), ['p1']);
    // A name the schema lacks is just words, silently (a question like `CS:GO?`).
    const unknown = index.search('backup colour:blue');
    assert.ok(unknown.hits.length > 0);
    assert.equal(unknown.warnings, undefined);
    // Other reinterpretations of a field of the schema are reported, never silent.
    assert.match(index.search('priority:3 backup').warnings[0], /^`priority` is a number field: `priority:3` was searched as plain words; filter by it with the `filter` option$/);
    assert.equal(index.search('backup').warnings, undefined, 'plain searches carry no warnings');
    // Strict syntax rejects them, saying to use the filter option.
    const strict = await expectCode(() => index.search('deploy kind:rule', { syntax: 'strict' }), 'INVALID_QUERY');
    assert.match(strict.message, /`kind` is not a text field: filter by it with the `filter` option/);
    await index.close();
  });

  t('namespace prefix filters: a trailing * or { prefix }, in search, count, listings and removeWhere', async () => {
    const index = await Memdex.open({ storage: makeStorage(), autoCommit: false });
    index.addAll([
      { id: 'a', namespace: 'repo:webapp/main', text: 'deploy notes' },
      { id: 'b', namespace: 'repo:webapp/dev', text: 'deploy notes' },
      { id: 'c', namespace: 'repo:api/main', text: 'deploy notes' },
      { id: 'd', namespace: 'other', text: 'deploy notes' },
    ]);
    assert.equal(index.count({ namespace: 'repo:*' }), 3);
    assert.equal(index.count({ namespace: { prefix: 'repo:webapp/' } }), 2);
    assert.equal(index.count({ namespace: ['repo:api/*', 'other'] }), 2);
    const ids = (r) => r.hits.map((h) => h.id).sort();
    assert.deepEqual(ids(index.search('deploy', { filter: { namespace: 'repo:webapp/*' } })), ['a', 'b']);
    assert.deepEqual(ids(index.search('', { filter: { namespace: { prefix: ['repo:api/', 'other'] } } })), ['c', 'd']);
    await expectCode(() => index.count({ namespace: { startsWith: 'repo' } }), 'SCHEMA');
    assert.equal(index.removeWhere({ namespace: 'repo:webapp/*' }), 2);
    assert.equal(index.count(), 2);
    await index.close();
  });

  t('small things: a document without id names itself; stats count documents just added', async () => {
    const index = await Memdex.open({ storage: makeStorage(), autoCommit: false });
    const e = await expectCode(() => index.add({ title: 'no id', text: 'x' }), 'SCHEMA');
    assert.equal(e.message, 'schema error on field `id`: is missing in the document {text, title}: every document needs a non-empty string `id`');
    const m = await expectCode(() => index.addMany([{ id: 'ok', text: 'x' }, { text: 'y' }]), 'SCHEMA');
    assert.ok(m.message.startsWith('addMany stopped at document 2 (no id): schema error on field `id`: is missing in the document {text}'), m.message);
    assert.ok(!/undefined/.test(e.message + m.message), 'no "undefined" in the messages');
    await index.addMany(MEMORIES);
    const stats = index.stats();
    assert.equal(stats.documents, MEMORIES.length + 1);
    assert.ok(stats.terms > 0 && stats.segments > 0, JSON.stringify(stats));
    assert.equal(stats.buffered, 0);
    await index.close();
  });
}
