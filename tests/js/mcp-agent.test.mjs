// A scripted week of an agent's work through `memdex mcp` (no model: the
// calls an agent makes, in order), asserting what it gets back at each step:
// store decisions, supersede one, search by identifier, list the rules,
// recall by time, clean up, and find it all again after a restart.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { ids, startServer, tempDir, text } from './mcp-helpers.mjs';

// May 2026: Monday is the 4th.
const day = (d, time = '10:00') => `2026-05-0${d}T${time}:00Z`;

test('a week of work: decisions, a superseded one, identifiers, rules, recall by time, restart', async (t) => {
  const dir = tempDir(t);
  let s = await startServer(dir, ['--namespace', 'agent:coder']);
  t.after(() => s.close());

  // Monday: the agent records what it decided and saw.
  const monday = await s.call('memory_store', {
    memories: [
      { title: 'Sessions cached in Redis', text: 'Decision: the session cache uses Redis (ttl 30 min) because sticky sessions broke autoscaling.', kind: 'decision', tags: ['cache', 'sessions'], timestamp: day(4) },
      { title: 'Validate API input with zod', text: 'Rule: every API handler validates its input with a zod schema before touching the database.', kind: 'rule', tags: ['api'], timestamp: day(4, '11:00') },
      { title: 'N+1 queries in getUserById', text: 'getUserById in src/users/repo.ts issues one query per role: N+1 on the profile page.', kind: 'observation', tags: ['performance'], timestamp: day(4, '15:00') },
    ],
  });
  const [redisId, zodRule, n1] = monday.structuredContent.stored.map((x) => x.id);
  assert.equal(monday.structuredContent.count, 3);

  // Tuesday: recall by topic and by identifier.
  const cache = await s.call('memory_search', { query: 'session cache' });
  assert.equal(cache.structuredContent.hits[0].id, redisId);
  assert.match(cache.structuredContent.hits[0].snippet, /Redis/);
  for (const q of ['getUserById', 'src/users/repo.ts', 'repo.ts N+1']) {
    const r = await s.call('memory_search', { query: q });
    assert.equal(r.structuredContent.hits[0]?.id, n1, `${q}: ${text(r)}`);
  }
  assert.deepEqual(ids(await s.call('memory_search', { query: 'zod schema', kind: 'rule' })), [zodRule]);

  // Wednesday: Redis is replaced by Memcached. New decision linked to the old
  // one, the old one marked superseded (its other fields kept).
  const wed = await s.call('memory_store', {
    title: 'Sessions cached in Memcached',
    text: 'Decision: move the session cache from Redis to Memcached; Redis persistence caused latency spikes.',
    kind: 'decision',
    tags: ['cache', 'sessions'],
    timestamp: day(6),
    links: [{ type: 'SUPERSEDES', to: redisId }],
  });
  const memcachedId = wed.structuredContent.stored[0].id;
  const marked = await s.call('memory_update', { id: redisId, tags: ['cache', 'sessions', 'superseded'] });
  assert.equal(marked.structuredContent.memory.title, 'Sessions cached in Redis');
  assert.equal(marked.structuredContent.memory.timestamp, day(4).replace('Z', '.000Z'));

  // Which session cache decision is current? Both match; newest first tells.
  const both = await s.call('memory_search', { query: 'session cache decision', order: 'newest' });
  assert.deepEqual(ids(both), [memcachedId, redisId]);
  assert.deepEqual(both.structuredContent.hits[1].tags, ['cache', 'sessions', 'superseded']);
  const current = await s.call('memory_get', { id: memcachedId });
  assert.deepEqual(current.structuredContent.memories[0].links, [{ type: 'SUPERSEDES', to: redisId }]);
  assert.match(text(current), new RegExp(`SUPERSEDES -> ${redisId}`));

  // Thursday: another rule; the agent reviews all rules, newest first.
  await s.call('memory_store', { title: 'Feature flags in config/flags.yaml', text: 'Rule: feature flags live in config/flags.yaml, never in code.', kind: 'rule', tags: ['config'], timestamp: day(7) });
  const rules = await s.call('memory_list', { kind: 'rule' });
  assert.equal(rules.structuredContent.total, 2);
  assert.deepEqual(rules.structuredContent.memories.map((m) => m.title), ['Feature flags in config/flags.yaml', 'Validate API input with zod']);

  // Friday: what happened on Wednesday? And this week's decisions, oldest first.
  const wednesday = await s.call('memory_list', { since: '2026-05-06', until: '2026-05-06' });
  assert.deepEqual(ids(wednesday), [memcachedId]);
  const decisions = await s.call('memory_list', { kind: 'decision', since: '2026-05-04', order: 'asc' });
  assert.deepEqual(ids(decisions), [redisId, memcachedId]);
  // Exact phrase and exclusion.
  assert.deepEqual(ids(await s.call('memory_search', { query: '"latency spikes"' })), [memcachedId]);
  assert.deepEqual(ids(await s.call('memory_search', { query: 'session cache -memcached', mode: 'or' })), [redisId]);

  // Saturday: the N+1 was fixed; observations go (preview, then confirm).
  const preview = await s.call('memory_delete', { kind: 'observation' });
  assert.equal(preview.structuredContent.matched, 1);
  assert.equal(preview.structuredContent.deleted, 0);
  const done = await s.call('memory_delete', { kind: 'observation', confirm: true });
  assert.deepEqual(done.structuredContent.ids, [n1]);

  // Sunday: a new session (restart) remembers everything that was kept.
  assert.equal(await s.close(), 0);
  s = await startServer(dir, ['--namespace', 'agent:coder']);
  const week = await s.call('memory_list', { since: '2026-05-04', until: '2026-05-10' });
  assert.equal(week.structuredContent.total, 4);
  // The deleted observation is gone (typo tolerance may still offer a near
  // word of another memory: "user" is one edit from "uses").
  assert.ok(!ids(await s.call('memory_search', { query: 'getUserById' })).includes(n1));
  const again = await s.call('memory_search', { query: 'session cache', order: 'newest', limit: 1 });
  assert.equal(again.structuredContent.hits[0].id, memcachedId);
  assert.equal(again.structuredContent.total, 2);
});
