// The behaviour suite of the memdex JS API, written once and run
// - in Node (tests/js/behaviour.test.mjs) with memory and filesystem storage,
// - in headless Chromium (tests/e2e/behaviour.test.mjs) with memory and real
//   IndexedDB storage.
// It only uses `assert.equal / deepEqual / ok / match` so the browser runner
// can provide a tiny assert of its own.
//
// defineSuite({ Memdex, MemdexError, makeStorage, test, assert, label })
// - makeStorage(): a fresh, empty storage adapter { get, put, delete, list }.
// - test(name, fn): registers an async test.

export const MEMORIES = [
  { id: 'm1', namespace: 'agent:coder', kind: 'rule', title: 'Never deploy on Fridays', text: 'Deployments are frozen from Friday noon until Monday.', timestamp: '2026-01-10T09:00:00Z' },
  { id: 'm2', namespace: 'agent:coder', kind: 'decision', title: 'Use PostgreSQL for the billing service', text: 'We chose PostgreSQL over MySQL because of JSONB support and row level security.', timestamp: '2026-02-01T12:00:00Z' },
  { id: 'm3', namespace: 'agent:ops', kind: 'observation', title: 'Disk usage alert on db-2', text: 'The database host db-2 ran out of disk after the nightly backup job.', timestamp: '2026-03-05T03:00:00Z' },
  { id: 'm4', namespace: 'agent:ops', kind: 'rule', title: 'Rotate credentials monthly', text: 'API keys and database passwords are rotated on the first Monday of every month.', timestamp: '2026-03-20T10:00:00Z' },
  { id: 'm5', namespace: 'agent:writer', kind: 'note', title: 'Style guide', text: 'Prefer short sentences. Use <code> tags & avoid jargon in release notes.', timestamp: '2026-04-01T08:00:00Z' },
];

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export function defineSuite({ Memdex, MemdexError, makeStorage, test, assert, label = '' }) {
  const t = (name, fn) => test(`${label}${label ? ': ' : ''}${name}`, fn);

  async function expectCode(fnOrPromise, code) {
    let error;
    try {
      await (typeof fnOrPromise === 'function' ? fnOrPromise() : fnOrPromise);
    } catch (err) {
      error = err;
    }
    assert.ok(error, `expected a ${code} error, nothing was thrown`);
    assert.ok(error instanceof MemdexError, `expected a MemdexError, got ${error?.name}: ${error?.message}`);
    const codes = [code].flat();
    assert.ok(codes.includes(error.code), `expected code ${codes.join(' or ')}, got ${error.code}: ${error.message}`);
    assert.ok(error.message.length > 10, 'the message explains');
    return error;
  }

  const fresh = async (extra = {}) => {
    const index = await Memdex.open({ storage: makeStorage(), autoCommit: false, ...extra });
    index.addAll(MEMORIES);
    return index;
  };

  t('add and search: ranked hits with stored fields and matched terms', async () => {
    const index = await fresh();
    assert.equal(index.size, MEMORIES.length);
    const { hits, mode } = index.search('deploying on friday');
    assert.equal(mode, 'or');
    assert.equal(hits[0].id, 'm1');
    assert.equal(hits[0].namespace, 'agent:coder');
    assert.equal(hits[0].fields.title, 'Never deploy on Fridays');
    assert.ok(hits[0].score > 0);
    assert.ok(hits[0].matchedTerms.includes('deploy'), JSON.stringify(hits[0].matchedTerms));
    for (let i = 1; i < hits.length; i++) assert.ok(hits[i - 1].score >= hits[i].score);
    assert.equal(index.get('m2').title, 'Use PostgreSQL for the billing service');
    assert.equal(index.get('nope'), undefined);
    await index.close();
  });

  t('add of an existing id replaces the document', async () => {
    const index = await fresh();
    index.add({ id: 'm1', title: 'Deploy any day', text: 'Continuous delivery: ship whenever green.' });
    assert.equal(index.size, MEMORIES.length);
    assert.equal(index.search('friday noon').hits.some((h) => h.id === 'm1'), false);
    assert.equal(index.search('continuous delivery').hits[0].id, 'm1');
    index.add({ id: 'm1', title: 'Back to Friday freeze', text: 'Friday freeze again.' });
    assert.equal(index.count(), MEMORIES.length);
    assert.equal(index.get('m1').title, 'Back to Friday freeze');
    await index.close();
  });

  t('search modes: and, or, fallback', async () => {
    const index = await fresh();
    assert.deepEqual(index.search('database disk', { mode: 'and' }).hits.map((h) => h.id), ['m3']);
    const or = index.search('database disk', { mode: 'or' }).hits.map((h) => h.id);
    assert.ok(or.includes('m3') && or.includes('m4'), JSON.stringify(or));
    assert.equal(index.search('database zebra', { mode: 'and' }).hits.length, 0);
    const fb = index.search('database zebra', { mode: 'fallback' });
    assert.equal(fb.mode, 'or');
    assert.ok(fb.hits.length >= 2);
    assert.equal(index.search('database disk', { mode: 'fallback' }).mode, 'and');
    assert.equal(index.search('database', { limit: 1 }).hits.length, 1);
    await index.close();
  });

  t('proximity: words standing together rank first; opt-in, validated by the engine', async () => {
    const index = await Memdex.open({ storage: makeStorage(), autoCommit: false });
    index.addAll([
      { id: 'far', title: 'notes', text: 'deploy one two three four five six seven eight friday' },
      { id: 'near', title: 'notes', text: 'one two three four five six seven eight deploy friday' },
    ]);
    const plain = index.search('deploy friday');
    assert.deepEqual(plain.hits.map((h) => h.id), ['far', 'near']);
    assert.equal(plain.hits[0].score, plain.hits[1].score);
    const near = index.search('deploy friday', { proximity: true });
    assert.deepEqual(near.hits.map((h) => h.id), ['near', 'far']);
    assert.ok(near.hits[0].score > near.hits[1].score);
    assert.equal(index.search('deploy friday', { proximity: { weight: 0 } }).hits[0].id, 'far');
    const err = await expectCode(() => index.search('deploy friday', { proximity: { window: 0 } }), 'USAGE');
    assert.match(err.message, /proximity\.window/);
    await expectCode(() => index.search('x', { strategy: 'magic' }), 'USAGE');
    await index.close();
  });

  t("strategy 'auto': the rule table, reported in results.strategy", async () => {
    const index = await fresh();
    // [query, reason, chosen mode, mode that produced the hits, expand hops, rewritten query]
    const table = [
      ['can I deploy on friday?', 'natural-language', 'or', 'or', undefined, undefined],
      ['"billing service" postgres', 'quoted', 'fallback', 'and', undefined, undefined],
      ['db-2 ran out of disk after backup_job', 'identifier', 'fallback', 'and', undefined, undefined],
      ['backup_job zebra', 'identifier', 'fallback', 'or', undefined, undefined],
      ['rotate credentials', 'short', 'fallback', 'and', undefined, undefined],
      ['what depends on the billing service?', 'natural-language', 'or', 'or', 1, 'the billing service'],
      ['memories linked to PostgreSQL', 'short', 'fallback', 'and', 1, 'PostgreSQL'],
      ['src/billing/service.ts', 'identifier', 'fallback', 'or', undefined, undefined],
    ];
    for (const [q, reason, chosen, ran, hops, query] of table) {
      const r = index.search(q, { strategy: 'auto' });
      assert.equal(r.strategy.name, 'auto', q);
      assert.equal(r.strategy.reason, reason, q);
      assert.equal(r.strategy.mode, chosen, q);
      assert.equal(r.strategy.proximity, reason === 'natural-language', q);
      assert.equal(r.mode, ran, q);
      assert.equal(r.strategy.expand?.hops, hops, q);
      assert.equal(r.strategy.query, query, q);
    }
    assert.equal(index.search('can I deploy on friday?', { strategy: 'auto' }).hits[0].id, 'm1');
    assert.equal(index.search('what depends on the billing service?', { strategy: 'auto' }).hits[0].id, 'm2');
    // Other options still apply; without `strategy` nothing is reported.
    assert.equal(index.search('database', { strategy: 'auto', filter: { kind: 'rule' } }).hits[0].id, 'm4');
    assert.equal(index.search('database').strategy, undefined);
    await index.close();
  });

  t('filters: namespace (one or several), keyword, date range; count and removeWhere', async () => {
    const index = await fresh();
    const ids = (r) => r.hits.map((h) => h.id).sort();
    assert.deepEqual(ids(index.search('database', { filter: { namespace: 'agent:ops' } })), ['m3', 'm4']);
    assert.deepEqual(ids(index.search('friday monday', { filter: { namespace: ['agent:coder'] } })), ['m1']);
    assert.deepEqual(ids(index.search('friday monday', { filter: { namespace: ['agent:coder', 'agent:ops'] } })), ['m1', 'm4']);
    assert.equal(index.count({ namespace: ['agent:coder', 'agent:writer'] }), 3);
    assert.deepEqual(ids(index.search('database', { filter: { kind: 'rule' } })), ['m4']);
    assert.deepEqual(
      ids(index.search('database', { filter: { timestamp: { gte: '2026-03-01T00:00:00Z', lt: '2026-03-10T00:00:00Z' } } })),
      ['m3'],
    );
    assert.equal(index.count({ namespace: 'agent:ops' }), 2);
    assert.equal(index.count({ kind: ['rule', 'note'] }), 3);
    assert.equal(index.removeWhere({ namespace: 'agent:ops' }), 2);
    assert.equal(index.count(), 3);
    assert.equal(index.remove('m5'), true);
    assert.equal(index.remove('m5'), false);
    assert.equal(index.count(), 2);
    await index.close();
  });

  t('listing without a query, sort by a field, total', async () => {
    const index = await fresh();
    const ids = (r) => r.hits.map((h) => h.id);
    const newest = { field: 'timestamp', order: 'desc' };
    // The most recent memories of a namespace, newest first, paged.
    const page = index.search('', { filter: { namespace: ['agent:coder', 'agent:ops'] }, sort: newest, limit: 3 });
    assert.deepEqual(ids(page), ['m4', 'm3', 'm2']);
    assert.equal(page.total, 4);
    assert.ok(page.hits.every((h) => h.score === 0 && h.matchedTerms.length === 0));
    assert.equal(page.hits[0].fields.title, 'Rotate credentials monthly');
    assert.deepEqual(ids(index.search('', { filter: { namespace: ['agent:coder', 'agent:ops'] }, sort: newest, limit: 3, offset: 3 })), ['m1']);
    // Everything, oldest first; a blank query with only a filter lists by id.
    assert.deepEqual(ids(index.search(' ', { sort: { field: 'timestamp' } })), ['m1', 'm2', 'm3', 'm4', 'm5']);
    const rules = index.search('', { filter: { kind: 'rule' } });
    assert.deepEqual(ids(rules), ['m1', 'm4']);
    assert.equal(rules.total, 2);
    // A time range ordered by time; a query sorted by time keeps its matches.
    const march = index.search('', { filter: { timestamp: { gte: '2026-03-01', lt: '2026-04-01' } }, sort: { field: 'timestamp', order: 'asc' } });
    assert.deepEqual(ids(march), ['m3', 'm4']);
    const sorted = index.search('database', { sort: newest });
    assert.deepEqual(ids(sorted), ['m4', 'm3']);
    assert.equal(sorted.total, 2);
    assert.ok(sorted.hits.every((h) => h.score > 0));
    // Keyword sort; ranked searches count (exactly while the page is not full); a blank query alone finds nothing.
    assert.deepEqual(ids(index.search('', { sort: { field: 'kind' }, limit: 2 })), ['m2', 'm5']);
    assert.equal(index.search('database').total, 2);
    assert.equal(index.search('database').totalExact, true);
    assert.equal(index.search('').hits.length, 0);
    // Wrong shapes are USAGE; fields that cannot sort are SCHEMA.
    await expectCode(() => index.search('', { sort: 'timestamp' }), 'USAGE');
    await expectCode(() => index.search('', { sort: { field: 'timestamp', order: 'newest' } }), 'USAGE');
    await expectCode(() => index.search('', { sort: { field: 'timestamp', by: 1 } }), 'USAGE');
    const err = await expectCode(() => index.search('', { sort: { field: 'title' } }), 'SCHEMA');
    assert.match(err.message, /title/);
    await expectCode(() => index.search('x', { sort: { field: 'nope' } }), 'SCHEMA');
    await index.close();
  });

  t('highlights: custom tags around matched terms, HTML escaped', async () => {
    const index = await fresh();
    const [hit] = index.search('code tags', { highlight: { preTag: '[', postTag: ']' } }).hits;
    assert.equal(hit.id, 'm5');
    const snippet = hit.snippets.text;
    assert.match(snippet, /\[code\]/);
    assert.match(snippet, /&lt;/);
    assert.ok(!snippet.includes('<code>'), snippet);
    const [def] = index.search('friday', { highlight: true }).hits;
    assert.match(def.snippets.title ?? def.snippets.text, /<mark>Friday/i);
    await index.close();
  });

  t('storedFields: all, none or a chosen few', async () => {
    const index = await fresh();
    const [all] = index.search('backup').hits;
    assert.ok(Object.keys(all.fields).length >= 2, JSON.stringify(all.fields));
    const [none] = index.search('backup', { storedFields: false }).hits;
    assert.deepEqual(none.fields, {});
    assert.deepEqual([none.id, none.score, none.namespace], [all.id, all.score, all.namespace]);
    const [title] = index.search('backup', { storedFields: ['title'] }).hits;
    assert.deepEqual(Object.keys(title.fields), ['title']);
    assert.equal(title.fields.title, all.fields.title);
    await expectCode(() => index.search('backup', { storedFields: ['nope'] }), 'SCHEMA');
    await index.close();
  });

  t('suggest, prefix and explain', async () => {
    const index = await fresh();
    const words = index.suggest('data', { limit: 5 }).map((s) => s.suggestion);
    assert.ok(words.includes('database'), JSON.stringify(words));
    assert.equal(index.search('postgr', { prefix: true }).hits[0].id, 'm2');
    const [hit] = index.search('backup', { explain: true }).hits;
    assert.ok(Array.isArray(hit.explanation) && hit.explanation.length > 0);
    await index.close();
  });

  t('typos: swapped letters find their memories with fuzzy', async () => {
    const storage = makeStorage();
    const first = await Memdex.open({ storage, autoCommit: false });
    first.addAll([
      { id: 'deploy', text: 'Deployment checklist: deploy with a rollback plan.' },
      { id: 'zustand', text: 'State management: we use Zustand stores, not Redux.' },
      { id: 'vitest', text: 'Testing: run the unit tests with Vitest in watch mode.' },
      { id: 'retries', text: 'The HTTP client retries failed requests with backoff.' },
      { id: 'pnpm', text: 'Use pnpm, not npm, for installs in the monorepo.' },
    ]);
    const typos = { deploymnet: 'deploy', zustnad: 'zustand', vitset: 'vitest', retires: 'retries', pnmp: 'pnpm' };
    const check = (index, when) => {
      for (const [typo, id] of Object.entries(typos)) {
        assert.equal(index.search(typo).hits.length, 0, `${when}: ${typo} without fuzzy`);
        for (const fuzzy of ['auto', true, 1]) {
          const { hits } = index.search(typo, { fuzzy });
          assert.equal(hits[0]?.id, id, `${when}: ${typo} fuzzy ${fuzzy}: ${JSON.stringify(hits.map((h) => h.id))}`);
        }
      }
    };
    check(first, 'buffered');
    // Committed and reopened: the surface words are persisted.
    await first.commit();
    await first.close();
    const index = await Memdex.open({ storage, autoCommit: false });
    check(index, 'reopened');
    // An exact match outranks a typo match (0.5 per edit); 'auto' takes a
    // word the index contains as meant.
    index.add({ id: 'exact', text: 'deploymnet' });
    const { hits } = index.search('deploymnet', { fuzzy: 1 });
    assert.deepEqual(hits.map((h) => h.id), ['exact', 'deploy']);
    assert.ok(hits[0].score > hits[1].score);
    assert.deepEqual(index.search('deploymnet', { fuzzy: 'auto' }).hits.map((h) => h.id), ['exact']);
    await expectCode(() => index.search('x', { fuzzy: 3 }), 'USAGE');
    await expectCode(() => index.search('x', { fuzzy: 'yes' }), 'USAGE');
    await index.close();
  });

  t('suggest: words as written, then whole-query completion in context', async () => {
    const index = await fresh();
    index.addAll([
      { id: 's1', text: 'Deploy the frontend on Friday after the freeze.' },
      { id: 's2', text: 'Deploy the fridge firmware.' },
      { id: 's3', text: 'Frameworks: freshness of the feature flags.' },
    ]);
    const f = index.suggest('f', { limit: 20 });
    const words = f.map((s) => s.suggestion);
    assert.ok(words.includes('friday') && words.includes('feature'), JSON.stringify(words));
    assert.ok(!words.includes('featur') && !words.includes('frozen '), JSON.stringify(words));
    for (let i = 1; i < f.length; i++) assert.ok(f[i - 1].score >= f[i].score);
    const d = index.suggest('deploy fr');
    assert.equal(d[0].suggestion, 'deploy friday', JSON.stringify(d));
    assert.ok(d.every((s) => s.suggestion.startsWith('deploy fr')), JSON.stringify(d));
    assert.ok(!d.some((s) => s.suggestion === 'deploy frameworks'), JSON.stringify(d));
    assert.deepEqual(index.suggest('deploy '), []);
    // Deleted documents stop being suggested at once.
    assert.ok(index.suggest('fridg').length === 1);
    index.remove('s2');
    assert.deepEqual(index.suggest('fridg'), []);
    await index.close();
  });

  t('errors carry stable codes and say what to do', async () => {
    const index = await fresh();
    await expectCode(() => index.add({ title: 'no id' }), 'SCHEMA');
    await expectCode(() => index.add('not a doc'), 'SCHEMA');
    await expectCode(() => index.add({ id: 'x', colour: 'blue' }), 'SCHEMA');
    await expectCode(() => index.search('"unclosed', { syntax: 'strict' }), 'INVALID_QUERY');
    assert.ok(Array.isArray(index.search('"unclosed (').hits), 'lenient never throws');
    await expectCode(() => index.search('x', { limt: 3 }), 'USAGE');
    await expectCode(() => index.search('x', { mode: 'xor' }), 'USAGE');
    // A wrong shape is USAGE for every option (NaN included: JSON would make
    // it null); a name the schema lacks is SCHEMA.
    for (const bad of [
      { prefix: 'yes' }, { explain: 1 }, { highlight: 5 }, { highlight: { pre: '<b>' } },
      { highlight: { preTag: 1 } }, { highlight: { snippetLength: -1 } }, { storedFields: 'title' },
      { storedFields: ['title', 3] }, { fields: ['title'] }, { fields: { title: -1 } }, { fields: { title: NaN } },
      { k1: 'x' }, { k1: Infinity }, { b: NaN }, { b: 1.5 },
    ]) {
      await expectCode(() => index.search('backup', bad), 'USAGE');
    }
    await expectCode(() => index.search('backup', { fields: { colour: 1 } }), 'SCHEMA');
    await expectCode(() => index.search('backup', { storedFields: ['colour'] }), 'SCHEMA');
    const shaped = index.search('backup', {
      highlight: { preTag: '[', postTag: ']', snippetLength: 60 }, fields: { title: 0, text: 1 }, storedFields: ['title'], k1: 0, b: 1,
      prefix: false, explain: false,
    });
    assert.ok(shaped.hits.length > 0);
    await expectCode(() => index.search(42), 'INVALID_QUERY');
    await expectCode(() => index.get(7), 'USAGE');
    await expectCode(() => index.removeWhere({}), 'USAGE');
    await expectCode(Memdex.open({ storage: 'floppy' }), 'USAGE');
    await expectCode(Memdex.open({ colour: 'red' }), 'USAGE');
    await expectCode(Memdex.open({ schema: { title: { type: 'vector' } } }), 'SCHEMA');
    await index.close();
  });

  t('NaN and ±Infinity, which JSON cannot carry, are SCHEMA errors naming the field', async () => {
    const schema = { title: { type: 'text' }, text: { type: 'text' }, score: { type: 'number' }, meta: { type: 'stored' } };
    const index = await Memdex.open({ storage: makeStorage(), autoCommit: false, schema });
    // JSON.stringify writes them as null, which dropped the field silently.
    for (const bad of [NaN, Infinity, -Infinity]) {
      const e = await expectCode(() => index.add({ id: 'n', title: 'x', score: bad }), 'SCHEMA');
      assert.match(e.message, /`score`/);
      const b = await expectCode(() => index.addAll([{ id: 'ok', text: 'fine' }, { id: 'n', meta: { xs: [1, bad] } }]), 'SCHEMA');
      assert.match(b.message, /`meta\.xs\[1\]`/);
      assert.match(b.message, /"n"/);
      assert.equal(b.added, 1);
    }
    assert.equal(index.get('n'), undefined);
    assert.equal(index.get('ok').text, 'fine');
    index.add({ id: 'z', score: 0, meta: { note: null, n: -1.5 } });
    // (Field by field: the browser harness's deepEqual compares key order.)
    const meta = index.get('z').meta;
    assert.equal(meta.note, null);
    assert.equal(meta.n, -1.5);
    await index.close();
  });

  t('documents nested deeper than 127 levels: LIMIT naming the document, from add, addAll and addMany', async () => {
    const index = await Memdex.open({ storage: makeStorage(), autoCommit: false, schema: { text: { type: 'text' }, meta: { type: 'stored' } } });
    // 200 levels: JSON.stringify copes, the engine's parser stops at 127.
    // 5,000 levels: JSON.stringify itself overflows (a plain RangeError before).
    for (const depth of [200, 5000]) {
      let deep = 'leaf';
      for (let i = 0; i < depth; i++) deep = { a: deep };
      for (const add of [(docs) => index.addAll(docs), (docs) => index.addMany(docs)]) {
        const e = await expectCode(() => add([{ id: `ok${depth}`, text: 'kept' }, { id: 'deep', meta: deep }]), 'LIMIT');
        assert.match(e.message, /"deep"/);
        assert.match(e.message, /127/);
        assert.equal(e.added, 1);
      }
      const single = await expectCode(() => index.add({ id: 'deep', meta: deep }), 'LIMIT');
      assert.match(single.message, /127/);
      assert.equal(index.get(`ok${depth}`).text, 'kept');
    }
    assert.equal(index.get('deep'), undefined);
    await index.close();
  });

  t('query budget: repeats merged; an over-budget query is flagged (lenient) or LIMIT (strict)', async () => {
    const index = await Memdex.open({ storage: makeStorage(), autoCommit: false, language: 'none' });
    // 48 two-letter prefixes with 80 words each: 48 * 64 expansions would
    // exceed the 1,024 a query may have.
    const letter = (i) => String.fromCharCode(97 + (i % 26));
    const prefixes = Array.from({ length: 48 }, (_, p) => letter(Math.floor(p / 26) + 1) + letter(p));
    const docs = prefixes.map((p, i) => ({
      id: `p${i}`,
      text: Array.from({ length: 80 }, (_, w) => p + letter(Math.floor(w / 26)) + letter(w)).join(' '),
    }));
    index.addAll(docs);
    const query = prefixes.map((p) => `${p}*`).join(' ');
    const cut = index.search(query, { limit: 48 });
    assert.deepEqual(cut.limited, ['expansions']);
    assert.equal(cut.hits.length, 48);
    const e = await expectCode(() => index.search(query, { syntax: 'strict' }), 'LIMIT');
    assert.match(e.message, /expansions/);
    // Up to 16 expanding terms keep their full expansions: no flag.
    const few = index.search(prefixes.slice(0, 16).map((p) => `${p}*`).join(' '), { syntax: 'strict' });
    assert.equal('limited' in few, false);
    // A clause repeated 1,024 times is planned once, as its summed boost.
    const once = index.search(`${prefixes[0]}*^1024`);
    const repeated = index.search(Array(1024).fill(`${prefixes[0]}*`).join(' '));
    assert.deepEqual(repeated.hits.map((h) => [h.id, h.score]), once.hits.map((h) => [h.id, h.score]));
    assert.equal('limited' in repeated, false);
    await index.close();
  });

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

  t('a different schema than the stored one is a SCHEMA error', async () => {
    const storage = makeStorage();
    const a = await Memdex.open({ name: 's', storage, schema: { body: { type: 'text' } } });
    a.add({ id: '1', body: 'hello world' });
    await a.commit();
    await a.close();
    await expectCode(Memdex.open({ name: 's', storage, schema: { other: { type: 'text' } } }), 'SCHEMA');
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

  // ---- issue 21: the everyday API ------------------------------------------

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
