// Behaviour suite, searching: ranking, replacement by id, modes, proximity,
// strategy 'auto', filters, listings and sorting, highlights, storedFields,
// suggest, prefix, explain and fuzzy matching.
import { MEMORIES } from './common.mjs';

/** Registers this area's cases on the context suiteContext() made. */
export function defineSearch({ Memdex, makeStorage, assert, t, expectCode, fresh }) {
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
}
