// Smaller holes of issue 27 (point 7), through the real `memdex mcp`
// subprocess and the JS API: a pinned namespace is one namespace; expansion
// never leaves it; timestamps past the JS date range are refused and never
// break the listing; import and recover take open()'s name rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { Memdex } from '../../pkg/node.js';
import { CLI, ids, startServer, tempDir } from './mcp-helpers.mjs';

const run = (args, env = {}) =>
  new Promise((resolve) => {
    const p = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (out += d));
    p.on('exit', (code) => resolve({ code, out }));
  });

test('memdex mcp --namespace must be one namespace: a prefix (team*) is refused', async (t) => {
  const dir = tempDir(t);
  const flag = await run(['mcp', '--dir', dir, '--namespace', 'team*']);
  assert.equal(flag.code, 2);
  assert.match(flag.out, /--namespace must be one namespace, not a prefix: team\*/);
  const env = await run(['mcp', '--dir', dir], { MEMDEX_NAMESPACE: 'team*' });
  assert.equal(env.code, 2);
  assert.match(env.out, /one namespace/);
});

// Fails until the engine restricts expanded hits to the namespaces the
// search filter allows (the Rust side of issue 27), unless the tool layer
// filters them.
test('memory_search with expand on a pinned server never returns another namespace\'s memories', async (t) => {
  const dir = tempDir(t);
  const index = await Memdex.open({ storage: 'fs', dir });
  index.addAll([
    { id: 'a1', namespace: 'team-a', title: 'alpha plan', text: 'the alpha rollout plan', links: [{ type: 'DEPENDS_ON', to: 'b1' }] },
    { id: 'a2', namespace: 'team-a', title: 'alpha notes', text: 'notes about alpha', links: [{ type: 'RELATES_TO', to: 'a1' }] },
    { id: 'b1', namespace: 'team-b', title: 'team-b Nightingale', text: 'team-b secret budget', links: [{ type: 'RELATES_TO', to: 'a1' }] },
  ]);
  await index.close();
  const a = await startServer(dir, ['--namespace', 'team-a']);
  t.after(() => a.close());
  for (const direction of ['out', 'in', 'both']) {
    const res = await a.call('memory_search', { query: 'alpha', expand: { hops: 2, direction } });
    assert.equal(res.isError, false, JSON.stringify(res.content));
    assert.ok(!ids(res).includes('b1'), `${direction}: ${ids(res)}`);
    assert.doesNotMatch(res.content[0].text, /Nightingale|secret budget|team-b/, direction);
  }
});

// The JS API half fails until the engine refuses such numbers (SCHEMA; the
// Rust side of issue 27).
test('a timestamp past the JS date range (1e20) is refused and never breaks memory_list', async (t) => {
  const dir = tempDir(t);
  const s = await startServer(dir);
  t.after(() => s.close());
  assert.equal((await s.call('memory_store', { id: 'ok', text: 'a normal memory' })).isError, false);
  const far = await s.call('memory_store', { id: 'far', text: 'far future', timestamp: 1e20 });
  assert.equal(far.isError, true, JSON.stringify(far.content));
  assert.ok(['SCHEMA', 'USAGE'].includes(far._meta['memdex/code']), far.content[0].text);
  const list = await s.call('memory_list', {});
  assert.equal(list.isError, false, JSON.stringify(list.content));
  assert.deepEqual(ids(list), ['ok']);

  const index = await Memdex.open({ storage: 'fs', dir: tempDir(t) });
  assert.throws(() => index.add({ id: 'far', text: 'far future', timestamp: 1e20 }), (err) => err.code === 'SCHEMA');
  index.free();
});

test('a stored timestamp past the JS date range does not break memory_list, memory_get or memory_search', async (t) => {
  const dir = tempDir(t);
  const index = await Memdex.open({ storage: 'fs', dir });
  try {
    index.add({ id: 'far', text: 'far future memory', timestamp: 1e20 });
  } catch (err) {
    assert.equal(err.code, 'SCHEMA'); // an engine that refuses it: nothing to list
  }
  index.add({ id: 'ok', text: 'a normal memory' });
  await index.close();
  const s = await startServer(dir);
  t.after(() => s.close());
  for (const [tool, args] of [['memory_list', {}], ['memory_get', { id: 'ok' }], ['memory_search', { query: 'memory' }]]) {
    const res = await s.call(tool, args);
    assert.equal(res.isError, false, `${tool}: ${JSON.stringify(res.content)}`);
  }
});

test('Memdex.import() and Memdex.recover() take the name rule of open()', async (t) => {
  const dir = tempDir(t);
  const source = await Memdex.open();
  source.add({ id: 'a', text: 'x' });
  const bytes = source.export();
  source.free();
  for (const name of ['memdex/blob', 'a b', '']) {
    await assert.rejects(Memdex.import(bytes, { storage: 'fs', dir, name }), (err) => err.code === 'USAGE' && /`name`/.test(err.message), name);
    await assert.rejects(Memdex.recover({ storage: 'fs', dir, name }), (err) => err.code === 'USAGE' && /`name`/.test(err.message), name);
  }
  // Nothing was written under the refused names; the index `memdex` opens.
  const index = await Memdex.open({ storage: 'fs', dir });
  assert.equal(index.size, 0);
  index.free();
});
