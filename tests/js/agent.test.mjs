// Agent retrieval through the JS API (issue 20): links + expand/related
// across commit and reopen, recency, diversity, dedupe, totals and tookMs,
// and pack (never over budget, property-style over random budgets and
// counters; truncation; the three reasons).
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Memdex, MemdexError } from '../../pkg/node.js';
import { memoryStorage } from '../../pkg/storage/memory.js';

const graphDocs = [
  { id: 'a', title: 'alpha decision', text: 'use postgres', links: [{ type: 'DEPENDS_ON', to: 'b' }, { type: 'SUPERSEDES', to: 'e' }, { type: 'DEPENDS_ON', to: 'ghost' }] },
  { id: 'b', title: 'bravo', text: 'database choice', links: [{ type: 'DEPENDS_ON', to: 'c' }] },
  { id: 'c', title: 'charlie', text: 'hosting', links: [{ type: 'DEPENDS_ON', to: 'd' }] },
  { id: 'd', title: 'delta', text: 'budget' },
  { id: 'e', title: 'echo', text: 'old decision mysql' },
  { id: 'f', title: 'foxtrot', text: 'migration plan', links: [{ type: 'DEPENDS_ON', to: 'a' }] },
];

const ids = (hits) => hits.map((h) => h.id);

function checkGraph(db) {
  const one = db.search('alpha', { expand: { hops: 1 } });
  assert.deepEqual(ids(one.hits), ['a', 'b', 'e']);
  assert.deepEqual(one.hits[1].via, { from: 'a', type: 'DEPENDS_ON', hops: 1 });
  assert.equal(one.hits[0].via, undefined);
  const deep = db.search('alpha', { expand: { hops: 3, types: ['DEPENDS_ON'] } });
  assert.deepEqual(ids(deep.hits), ['a', 'b', 'c', 'd']);
  assert.equal(deep.hits[3].via.hops, 3);
  assert.ok(Math.abs(deep.hits[3].score - deep.hits[0].score / 4) < 1e-5);
  assert.deepEqual(ids(db.search('alpha', { expand: { direction: 'in' } }).hits), ['a', 'f']);
  assert.deepEqual(ids(db.related('b', { hops: 2, direction: 'both' })), ['a', 'c', 'd', 'e', 'f']);
  assert.deepEqual(ids(db.related('b', { limit: 1 })), ['c']);
  assert.deepEqual(db.related('nope'), []);
}

test('links: expand and related survive commit, compaction and reopen; deleted targets dropped', async () => {
  const storage = memoryStorage();
  const db = await Memdex.open({ storage, autoCommit: false });
  for (const d of graphDocs) db.add(d);
  checkGraph(db);
  await db.commit();
  db.compact();
  checkGraph(db);
  await db.commit();
  await db.close();
  const again = await Memdex.open({ storage, autoCommit: false });
  checkGraph(again);
  assert.deepEqual(again.get('b').links, [{ type: 'DEPENDS_ON', to: 'c' }]);
  again.remove('b');
  assert.deepEqual(ids(again.search('alpha', { expand: { hops: 3 } }).hits), ['a', 'e']);
  await again.close();
});

test('links: malformed links are SCHEMA errors; bad expand options are USAGE', async () => {
  const db = await Memdex.open({ autoCommit: false });
  for (const links of ['b', [{ type: 'A' }], [{ type: 'A', to: 'b', x: 1 }]]) {
    assert.throws(() => db.add({ id: 'x', links }), (e) => e instanceof MemdexError && e.code === 'SCHEMA');
  }
  for (const expand of [{ hops: 0 }, { hops: 4 }, { direction: 'up' }, { depth: 1 }]) {
    assert.throws(() => db.search('x', { expand }), (e) => e instanceof MemdexError && e.code === 'USAGE', JSON.stringify(expand));
  }
});

test('recency: newer first, exempt never decays; totals and tookMs', async () => {
  const day = 86_400_000;
  const now = Date.UTC(2026, 4, 30);
  const db = await Memdex.open({ autoCommit: false });
  db.add({ id: 'old', text: 'deploy on friday', kind: 'note', timestamp: now - 90 * day });
  db.add({ id: 'new', text: 'deploy on friday', kind: 'note', timestamp: new Date(now - day).toISOString() });
  db.add({ id: 'rule', text: 'deploy on friday', kind: 'rule', timestamp: now - 400 * day });
  const r = db.search('deploy', { recency: { halfLife: '30d', weight: 1, now, exempt: { kind: 'rule' } } });
  assert.deepEqual(ids(r.hits), ['rule', 'new', 'old']);
  assert.equal(r.total, 3);
  assert.equal(r.totalExact, true);
  assert.equal(typeof r.tookMs, 'number');
  assert.ok(r.tookMs >= 0);
  assert.throws(() => db.search('deploy', { recency: { weight: 3 } }), (e) => e.code === 'USAGE');
});

test('diversity lowers planted duplicates in the top 10; dedupe lists them', async () => {
  const db = await Memdex.open({ autoCommit: false });
  for (let i = 0; i < 8; i++) {
    db.add({ id: `dup${i}`, title: 'database migration', text: `database migration runs nightly with postgres copy ${i % 2}` });
  }
  const others = ['schema drift found by the linter', 'backups restored to staging weekly', 'replica lag alerts paged oncall',
    'index bloat after bulk loads', 'vacuum settings tuned for autovacuum', 'pooling through pgbouncer transactions',
    'failover drill took four minutes', 'sharding postponed until next year'];
  others.forEach((text, i) => db.add({ id: `x${i}`, title: 'database migration', text }));
  const count = (hits) => hits.filter((h) => h.id.startsWith('dup')).length;
  assert.equal(count(db.search('database migration', { limit: 10 }).hits), 8);
  assert.ok(count(db.search('database migration', { limit: 10, diversity: { lambda: 0.5 } }).hits) <= 3);
  const deduped = db.search('database migration', { limit: 10, dedupe: true }).hits;
  const dups = deduped.filter((h) => h.id.startsWith('dup'));
  assert.equal(dups.length, 2);
  assert.deepEqual(dups.map((h) => h.duplicates.length), [3, 3]);
});

test('pack: the three reasons', async () => {
  const db = await Memdex.open({ autoCommit: false });
  assert.equal(db.pack('anything', { budgetTokens: 100 }).reason, 'empty-index');
  db.add({ id: 'm1', title: 'Deploy rule', kind: 'rule', timestamp: '2026-05-01T10:00:00Z', text: 'Never deploy on Friday.' });
  const none = db.pack('kubernetes', { budgetTokens: 100 });
  assert.deepEqual(none, { text: '', hits: [], truncated: [], omitted: 0, usedTokens: 0, reason: 'no-match' });
  const ok = db.pack('deploy', { budgetTokens: 100 });
  assert.equal(ok.reason, 'ok');
  assert.equal(ok.text, '[1] Deploy rule (rule, 2026-05-01T10:00:00Z) id=m1\nNever deploy on Friday.');
  assert.equal(ok.usedTokens, Math.ceil(ok.text.length / 4));
  for (const budgetTokens of [0, -1, 1.5, '10', undefined]) {
    assert.throws(() => db.pack('deploy', { budgetTokens }), (e) => e.code === 'USAGE');
  }
});

test('pack never exceeds the budget (random budgets and counters) and reports cuts', async () => {
  const db = await Memdex.open({ autoCommit: false });
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const words = ['memory', 'agent', 'deploy', 'friday', 'postgres', 'index', 'rule', 'note', 'wasm', 'edge'];
  for (let i = 0; i < 40; i++) {
    const n = 5 + Math.floor(rand() * 200);
    const text = Array.from({ length: n }, () => words[Math.floor(rand() * words.length)]).join(' ');
    db.add({ id: `d${i}`, title: `memory ${i}`, kind: 'note', text });
  }
  const counters = [undefined, (t) => t.split(/\s+/).filter(Boolean).length, (t) => Math.ceil(t.length / 3) + 1];
  let sawTruncated = false;
  let sawOmitted = false;
  for (let round = 0; round < 200; round++) {
    const budgetTokens = 1 + Math.floor(rand() * 800);
    const countTokens = counters[round % counters.length];
    const p = db.pack('memory agent', { budgetTokens, countTokens, limit: 15 });
    const used = (countTokens ?? ((t) => Math.ceil(t.length / 4)))(p.text);
    assert.ok(used <= budgetTokens, `round ${round}: ${used} > ${budgetTokens}`);
    assert.equal(p.usedTokens, p.text ? used : 0);
    assert.equal(p.reason, 'ok');
    assert.equal(p.hits.length + p.omitted, 15);
    for (const id of p.truncated) assert.ok(p.hits.some((h) => h.id === id));
    sawTruncated ||= p.truncated.length > 0;
    sawOmitted ||= p.omitted > 0;
  }
  assert.ok(sawTruncated && sawOmitted);
});
