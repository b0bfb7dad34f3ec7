// `memdex mcp` as an MCP client sees it: the built package's bin started as
// a subprocess, driven through the SDK's Client over stdio.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import Ajv from 'ajv';

import { toolDefinitions } from '../../pkg/tools.js';
import { CLI, ids, startServer, tempDir, text } from './mcp-helpers.mjs';

const NAMES = ['memory_delete', 'memory_get', 'memory_list', 'memory_related', 'memory_search', 'memory_store', 'memory_update'];

test('initialize and tools/list: every tool has valid JSON Schemas, an output schema, annotations and a description for a model', async (t) => {
  const s = await startServer(tempDir(t));
  t.after(() => s.close());
  assert.equal(s.client.getServerVersion().name, 'memdex');
  assert.match(s.client.getInstructions(), /memory_search/);
  assert.deepEqual(s.tools.map((x) => x.name).sort(), NAMES);
  const ajv = new Ajv({ strict: true });
  const defs = new Map(toolDefinitions().map((d) => [d.name, d]));
  for (const tool of s.tools) {
    for (const schema of [tool.inputSchema, tool.outputSchema]) {
      assert.equal(schema.type, 'object', tool.name);
      assert.ok(ajv.validateSchema(schema), `${tool.name}: ${ajv.errorsText()}`);
      ajv.compile(schema);
    }
    // Listed exactly as defined (the SDK only adds $schema).
    const { $schema, ...input } = tool.inputSchema;
    assert.deepEqual(input, defs.get(tool.name).inputSchema, tool.name);
    assert.ok(tool.description.length > 150, tool.name);
    assert.equal(typeof tool.title, 'string');
    for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']) {
      assert.equal(typeof tool.annotations[hint], 'boolean', `${tool.name} ${hint}`);
    }
  }
  const by = (n) => s.tools.find((x) => x.name === n).annotations;
  for (const n of ['memory_search', 'memory_list', 'memory_get', 'memory_related']) assert.equal(by(n).readOnlyHint, true, n);
  assert.equal(by('memory_delete').destructiveHint, true);
  assert.equal(by('memory_update').destructiveHint, true);
  assert.equal(by('memory_store').readOnlyHint, false);
  assert.deepEqual(s.tools.find((x) => x.name === 'memory_search').inputSchema.required, ['query']);
  // Unpinned: namespace is an argument.
  assert.ok(s.tools.every((x) => x.inputSchema.properties.namespace));
});

test('store with metadata, search, list newest first, update one field, get, delete with and without confirm, restart', async (t) => {
  const dir = tempDir(t);
  const s = await startServer(dir);
  const stored = await s.call('memory_store', {
    memories: [
      { id: 'db', title: 'Use PostgreSQL for billing', text: 'Billing moves to PostgreSQL 16: row level security and JSONB.', kind: 'decision', tags: ['billing', 'database'], timestamp: '2026-05-04T10:00:00Z' },
      { id: 'friday', title: 'No deploys on Friday', text: 'Never deploy to production on Friday afternoons.', kind: 'rule', tags: ['deploy'], timestamp: '2026-05-01T09:00:00Z' },
      { id: 'flaky', title: 'Flaky test in auth', text: 'tests/auth/login.spec.ts fails one run in twenty on CI.', kind: 'observation', tags: ['ci', 'auth'], timestamp: '2026-05-03T15:30:00Z' },
    ],
  });
  assert.equal(stored.isError, false);
  assert.deepEqual(stored.structuredContent, {
    stored: [{ id: 'db', replaced: false }, { id: 'friday', replaced: false }, { id: 'flaky', replaced: false }],
    count: 3,
  });
  const generated = await s.call('memory_store', { text: 'The staging cluster runs on three nodes.', title: 'Staging size', kind: 'note' });
  const noteId = generated.structuredContent.stored[0].id;
  assert.match(noteId, /^mem-/);

  // Search: ranked hits with metadata and snippets.
  const found = await s.call('memory_search', { query: 'postgres billing' });
  assert.equal(found.structuredContent.hits[0].id, 'db');
  const hit = found.structuredContent.hits[0];
  assert.equal(hit.kind, 'decision');
  assert.deepEqual(hit.tags, ['billing', 'database']);
  assert.equal(hit.timestamp, '2026-05-04T10:00:00.000Z');
  assert.ok(hit.score > 0);
  assert.match(hit.snippet, /PostgreSQL 16/);
  assert.match(text(found), /\[db\] Use PostgreSQL for billing \(decision; tags: billing, database; 2026-05-04/);
  assert.deepEqual(ids(await s.call('memory_search', { query: 'login spec', kind: ['observation', 'rule'] })), ['flaky']);
  assert.deepEqual(ids(await s.call('memory_search', { query: 'deploy', tags: ['database'] })), []);

  // List: newest first, filters, paging with a cursor.
  const listed = await s.call('memory_list', {});
  assert.equal(listed.structuredContent.total, 4);
  assert.deepEqual(ids(listed).slice(1), ['db', 'flaky', 'friday']); // the generated note is newest (now)
  const page1 = await s.call('memory_list', { limit: 2, until: '2026-05-31' });
  assert.deepEqual(ids(page1), ['db', 'flaky']);
  const page2 = await s.call('memory_list', { limit: 2, until: '2026-05-31', cursor: page1.structuredContent.nextCursor });
  assert.deepEqual(ids(page2), ['friday']);
  assert.equal(page2.structuredContent.nextCursor, undefined);
  assert.deepEqual(ids(await s.call('memory_list', { order: 'asc', kind: ['rule', 'decision'] })), ['friday', 'db']);
  const wrongCursor = await s.call('memory_list', { kind: 'rule', cursor: page1.structuredContent.nextCursor });
  assert.equal(wrongCursor.isError, true);
  assert.match(text(wrongCursor), /^USAGE: .*other filters/);

  // Update one field; the others are kept.
  const updated = await s.call('memory_update', { id: 'db', tags: ['billing', 'database', 'superseded'] });
  assert.deepEqual(updated.structuredContent.changed, ['tags']);
  const got = await s.call('memory_get', { id: 'db' });
  const memory = got.structuredContent.memories[0];
  assert.equal(memory.title, 'Use PostgreSQL for billing');
  assert.equal(memory.text, 'Billing moves to PostgreSQL 16: row level security and JSONB.');
  assert.equal(memory.kind, 'decision');
  assert.equal(memory.timestamp, '2026-05-04T10:00:00.000Z');
  assert.deepEqual(memory.tags, ['billing', 'database', 'superseded']);

  // Storing an existing id is an error unless replace: true.
  const taken = await s.call('memory_store', { id: 'db', text: 'other' });
  assert.equal(taken.isError, true);
  assert.match(text(taken), /^EXISTS: .*replace: true/);
  const replaced = await s.call('memory_store', { id: 'friday', text: 'Deploys are fine on Fridays before noon.', kind: 'rule', replace: true });
  assert.deepEqual(replaced.structuredContent.stored, [{ id: 'friday', replaced: true }]);

  // Delete by filter: a preview without confirm, then the deletion.
  const preview = await s.call('memory_delete', { kind: 'observation' });
  assert.equal(preview.isError, false);
  assert.deepEqual(preview.structuredContent, { deleted: 0, ids: ['flaky'], matched: 1, confirmed: false });
  assert.match(text(preview), /Would delete 1 memory .*confirm: true/);
  assert.equal((await s.call('memory_get', { id: 'flaky' })).isError, false);
  const confirmed = await s.call('memory_delete', { kind: 'observation', confirm: true });
  assert.deepEqual(confirmed.structuredContent, { deleted: 1, ids: ['flaky'], matched: 1, confirmed: true });
  // By id.
  const byId = await s.call('memory_delete', { ids: [noteId, 'nope'] });
  assert.deepEqual(byId.structuredContent, { deleted: 1, ids: [noteId], missing: ['nope'], confirmed: true });
  const gone = await s.call('memory_get', { id: 'flaky' });
  assert.equal(gone.isError, true);
  assert.match(text(gone), /^NOT_FOUND: No memory with id "flaky"/);
  assert.equal(await s.close(), 0);

  // A fresh server on the same folder finds everything again.
  const again = await startServer(dir);
  t.after(() => again.close());
  // friday was replaced without a timestamp: stamped now, so newest.
  assert.deepEqual(ids(await again.call('memory_list', {})), ['friday', 'db']);
  assert.deepEqual(ids(await again.call('memory_search', { query: 'postgresql' })), ['db']);
  const after = (await again.call('memory_get', { ids: ['db', 'friday'] })).structuredContent.memories;
  assert.deepEqual(after[0].tags, ['billing', 'database', 'superseded']);
  assert.equal(after[1].text, 'Deploys are fine on Fridays before noon.');
});

test('errors are tool errors with a code and a next step; protocol errors only for protocol misuse', async (t) => {
  const s = await startServer(tempDir(t));
  t.after(() => s.close());
  for (const [name, args, pattern] of [
    ['memory_search', {}, /^USAGE: .*"query" is required/],
    ['memory_search', { query: '   ' }, /^USAGE: .*use memory_list/],
    ['memory_search', { query: 'x', limit: 500 }, /"limit" must be between 1 and 50/],
    ['memory_search', { query: 'x', mode: 'xor' }, /"mode" must be one of "or", "and", "fallback"/],
    // Dates are the engine's to judge (SCHEMA, its message), with the forms the tools take.
    ['memory_search', { query: 'x', since: 'last tuesday' }, /^SCHEMA: .*range bounds .*since and until take ISO dates .* 7d/],
    ['memory_search', { query: 'x', kind: 3 }, /"kind" must be a string or a list of strings/],
    ['memory_store', { text: 42 }, /"text" must be a string/],
    ['memory_store', {}, /"text" is required/],
    ['memory_store', { text: 'a', memories: [{ text: 'b' }] }, /not both/],
    ['memory_store', { memories: [{ title: 'no text' }] }, /"memories\[0\]\.text" is required/],
    ['memory_store', { text: 'a', timestamp: 'yesterday-ish' }, /^SCHEMA: .*`timestamp`: dates are ISO-8601 .*like 2026-05-01T09:30:00Z/],
    ['memory_store', { id: 'bad\u0001id', text: 'a' }, /"id" must not contain control characters/],
    ['memory_update', { id: 'x' }, /give at least one field/],
    ['memory_update', { id: 'nope', title: 'x' }, /^NOT_FOUND: .*memory_search or memory_list/],
    ['memory_get', {}, /give "id" \(one memory\) or "ids"/],
    ['memory_get', { id: 'a', extra: 1 }, /unknown argument "extra"/],
    ['memory_delete', {}, /give "id"\/"ids", or a filter/],
    ['memory_delete', { ids: ['a'], kind: 'rule' }, /not both/],
  ]) {
    const res = await s.call(name, args);
    assert.equal(res.isError, true, `${name} ${JSON.stringify(args)}`);
    assert.match(text(res), pattern, `${name} ${JSON.stringify(args)}: ${text(res)}`);
  }
  const usage = await s.call('memory_search', { query: 'x', limit: 0, bogus: true });
  assert.equal(usage._meta['memdex/code'], 'USAGE');
  assert.equal(usage._meta['memdex/problems'].length, 2);
  // An unknown tool is the protocol's business.
  await assert.rejects(s.client.callTool({ name: 'memory_forget', arguments: {} }).then((r) => {
    if (r.isError) throw new Error(r.content[0].text);
  }), /memory_forget/);
});

test('a batch the engine refuses part of stores none of it', async (t) => {
  const s = await startServer(tempDir(t));
  t.after(() => s.close());
  const res = await s.call('memory_store', {
    memories: [
      { id: 'first', text: 'kept only if all are' },
      { id: 'second', text: 'bad time', timestamp: '2026-13-45' },
    ],
  });
  assert.equal(res._meta['memdex/code'], 'SCHEMA', text(res));
  assert.match(text(res), /`timestamp`: dates are ISO-8601 .*\(document `second`\)/);
  const got = await s.call('memory_get', { ids: ['first', 'second'] });
  assert.equal(got._meta['memdex/code'], 'NOT_FOUND', text(got));
});

test('search answers fit the character budget and say what was cut', async (t) => {
  const s = await startServer(tempDir(t));
  t.after(() => s.close());
  await s.call('memory_store', {
    memories: Array.from({ length: 30 }, (_, i) => ({
      title: `deploy log ${i}`,
      text: `deploy step ${'rollout canary verify '.repeat(40)} number ${i}`,
      kind: 'observation',
    })),
  });
  const res = await s.call('memory_search', { query: 'deploy canary', limit: 20, maxChars: 1200 });
  const out = res.structuredContent;
  assert.equal(out.truncated, true);
  assert.ok(out.returned < 20 && out.returned + out.omitted === 20, JSON.stringify({ r: out.returned, o: out.omitted }));
  assert.ok(text(res).length <= 1200 + 250, `text is ${text(res).length} chars`);
  assert.match(text(res), /more hits omitted to fit the 1200-character budget/);
  assert.ok(out.hits.every((h) => h.snippetTruncated && h.snippet.endsWith('…')));
  assert.match(text(res), /memory_get returns the full text/);
  const newest = await s.call('memory_search', { query: 'deploy', order: 'newest', limit: 3 });
  assert.equal(newest.structuredContent.total, 30);
  assert.equal(newest.structuredContent.order, 'newest');
});

test('read-only server: only the read tools, nothing written', async (t) => {
  const dir = tempDir(t);
  const w = await startServer(dir);
  await w.call('memory_store', { id: 'r1', text: 'Rotate credentials monthly.', kind: 'rule' });
  assert.equal(await w.close(), 0);
  const r = await startServer(dir, ['--read-only']);
  t.after(() => r.close());
  assert.deepEqual(r.tools.map((x) => x.name).sort(), ['memory_get', 'memory_list', 'memory_related', 'memory_search']);
  assert.deepEqual(ids(await r.call('memory_search', { query: 'credentials' })), ['r1']);
  await assert.rejects(
    r.client.callTool({ name: 'memory_store', arguments: { text: 'x' } }).then((res) => {
      if (res.isError) throw new Error(res.content[0].text);
    }),
    /memory_store/,
  );
});

test('two servers on one folder: racing writes all land (update under the fs writer lock), each reads the other', async (t) => {
  const dir = tempDir(t);
  const a = await startServer(dir);
  const b = await startServer(dir);
  t.after(() => Promise.all([a.close(), b.close()]));
  await a.call('memory_store', { id: 'from-a', text: 'written by window A' });
  assert.deepEqual(ids(await b.call('memory_search', { query: 'window' })), ['from-a']);
  // Interleaved writes: each server commits on top of the other's state.
  const writes = [];
  for (let i = 0; i < 8; i++) {
    writes.push(a.call('memory_store', { id: `a${i}`, text: `alpha note ${i}` }));
    writes.push(b.call('memory_store', { id: `b${i}`, text: `beta note ${i}` }));
  }
  for (const res of await Promise.all(writes)) assert.equal(res.isError, false, text(res));
  // No call saw a CONFLICT: each write ran under the cross-process writer
  // lock on the latest committed state (Memdex#update).
  assert.doesNotMatch(a.stderr() + b.stderr(), /CONFLICT|failed/);
  await b.call('memory_update', { id: 'from-a', title: 'edited in B' });
  for (const s of [a, b]) {
    const all = await s.call('memory_list', { limit: 100 });
    assert.equal(all.structuredContent.total, 17);
    assert.equal((await s.call('memory_get', { id: 'from-a' })).structuredContent.memories[0].title, 'edited in B');
  }
});

test('shutdown: stdin closing or SIGTERM exits 0 with everything committed; bad flags exit 2', async (t) => {
  const dir = tempDir(t);
  const s = await startServer(dir);
  await s.call('memory_store', { id: 'keep', text: 'survives a SIGTERM' });
  const proc = s.transport._process;
  const exited = new Promise((r) => proc.once('exit', (code) => r(code)));
  proc.kill('SIGTERM');
  assert.equal(await exited, 0);
  assert.match(s.stderr(), /shutting down \(SIGTERM\)/);
  await s.client.close().catch(() => {});
  const again = await startServer(dir);
  assert.deepEqual(ids(await again.call('memory_list', {})), ['keep']);
  assert.equal(await again.close(), 0);

  const run = (args) =>
    new Promise((resolve) => {
      const p = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      p.stdout.on('data', (d) => (out += d));
      p.stderr.on('data', (d) => (out += d));
      p.on('exit', (code) => resolve({ code, out }));
    });
  const noDir = await run(['mcp']);
  assert.equal(noDir.code, 2);
  assert.match(noDir.out, /--dir is required/);
  const unknown = await run(['mcp', '--dir', dir, '--nope']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.out, /unknown option --nope/);
  const help = await run(['--help']);
  assert.equal(help.code, 0);
  assert.match(help.out, /usage: memdex mcp --dir/);
});
