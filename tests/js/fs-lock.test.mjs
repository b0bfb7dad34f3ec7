// The fs writer lock (issue 27): a lock whose PID now names another process
// or names this very process without being one it holds is stale; a wait for
// a live holder is bounded and ends in LOCKED naming it; a full disk while
// writing the lock leaves no empty lock file; temporary files of killed
// writers are cleaned. Holders are real processes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { Memdex } from '../../pkg/node.js';
import { fsStorage } from '../../pkg/storage/fs.js';
import { startServer } from './mcp-helpers.mjs';

const FS_JS = new URL('../../pkg/storage/fs.js', import.meta.url).href;
const HOST = hostname();
const hasProc = existsSync('/proc/self/stat');

function tempDir(t) {
  const dir = mkdtempSync(join(tmpdir(), 'memdex-lock-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Field 22 of /proc/PID/stat (start time in clock ticks), as the lock records it. */
function startTime(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
}

/** A live process (it exits when the test ends). */
async function liveProcess(t) {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  t.after(() => child.kill());
  await once(child, 'spawn');
  return child;
}

/** Rejects when `promise` takes longer than `ms` (the old lock waited forever). */
const within = (promise, ms, what) =>
  Promise.race([promise, new Promise((_, reject) => setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms).unref())]);

function writeLock(dir, content) {
  mkdirSync(join(dir, 'memdex'), { recursive: true });
  writeFileSync(join(dir, 'memdex', 'writer.lock~'), content);
}

test('a lock whose PID now belongs to another process (start time differs) is stale', { skip: !hasProc && 'needs /proc' }, async (t) => {
  const dir = tempDir(t);
  const child = await liveProcess(t);
  // The holder died; its PID was reused by a live process started later.
  writeLock(dir, `${child.pid} ${HOST} 0123456789ab ${Date.now() - 60_000} 1`);
  const index = await Memdex.open({ storage: 'fs', dir, autoCommit: false });
  await within(index.update((ix) => ix.add({ id: 'a', text: 'after a restart' })), 5000, 'update');
  assert.equal(index.get('a')?.id, 'a');
  await index.close();
});

test('a live holder is never broken: the wait ends in LOCKED with its pid, host and since', { skip: !hasProc && 'needs /proc' }, async (t) => {
  const dir = tempDir(t);
  const child = await liveProcess(t);
  const since = Date.now() - 5000;
  writeLock(dir, `${child.pid} ${HOST} 0123456789ab ${since} ${startTime(child.pid)}`);
  const index = await Memdex.open({ storage: fsStorage(dir, { lockWaitMs: 300 }), autoCommit: false });
  const started = Date.now();
  await assert.rejects(index.update((ix) => ix.add({ id: 'a', text: 'x' })), (err) => {
    assert.equal(err.name, 'MemdexError');
    assert.equal(err.code, 'LOCKED');
    assert.deepEqual(err.holder, { pid: child.pid, host: HOST, since: new Date(since).toISOString() });
    assert.match(err.message, new RegExp(`process ${child.pid} on `));
    return true;
  });
  assert.ok(Date.now() - started < 3000, 'bounded wait');
  assert.equal(index.get('a'), undefined, 'nothing written');
  assert.ok(existsSync(join(dir, 'memdex', 'writer.lock~')), 'the live lock is still there');
  index.free();
});

test('a lock held by another process through the adapter: LOCKED, then the lock is free once it exits', async (t) => {
  const dir = tempDir(t);
  const holder = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import { fsStorage } from ${JSON.stringify(FS_JS)};
       await fsStorage(process.argv[1]).lock('memdex', async () => {
         process.stdout.write('locked\\n');
         await new Promise((resolve) => process.stdin.once('end', resolve).resume());
       });`,
      dir,
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  t.after(() => holder.kill());
  await once(holder.stdout, 'data');
  const storage = fsStorage(dir, { lockWaitMs: 200 });
  await assert.rejects(storage.lock('memdex', async () => {}), (err) => err.code === 'LOCKED' && err.holder.pid === holder.pid);
  holder.stdin.end();
  await once(holder, 'exit');
  assert.equal(await storage.lock('memdex', async () => 'mine'), 'mine');
});

test('memdex mcp: a lock left with the server\'s own PID (a restarted container) does not stall it', { skip: !hasProc && 'needs /proc' }, async (t) => {
  const dir = tempDir(t);
  const server = await startServer(dir);
  t.after(() => server.close());
  const pid = server.pid();
  // Same PID, host and start time, another token: a predecessor's lock.
  writeLock(dir, `${pid} ${HOST} 0123456789ab ${Date.now() - 60_000} ${startTime(pid)}`);
  const res = await within(server.call('memory_store', { id: 'a', text: 'stored despite the old lock' }), 5000, 'memory_store');
  assert.equal(res.isError, false, JSON.stringify(res.content));
});

test('memdex mcp: a live writer holding the lock makes memory_store answer LOCKED (bounded), and reads still answer', async (t) => {
  const dir = tempDir(t);
  const server = await startServer(dir);
  t.after(() => server.close());
  assert.equal((await server.call('memory_store', { id: 'base', text: 'the base memory' })).isError, false);
  const child = await liveProcess(t);
  writeLock(dir, `${child.pid} ${HOST} 0123456789ab ${Date.now()} ${hasProc ? startTime(child.pid) : '-'}`);
  const started = Date.now();
  const res = await within(server.call('memory_store', { id: 'x', text: 'waits for the lock' }), 20_000, 'memory_store');
  assert.equal(res._meta?.['memdex/code'], 'LOCKED', JSON.stringify(res.content));
  assert.match(res.content[0].text, new RegExp(`process ${child.pid}`));
  assert.ok(Date.now() - started < 15_000);
  assert.equal((await server.call('memory_get', { id: 'base' })).isError, false);
  assert.equal((await server.call('memory_get', { id: 'x' })).isError, true, 'nothing stored');
});

test('a full disk while writing the lock leaves no empty lock file behind', async (t) => {
  const dir = tempDir(t);
  // A real write failure: the writer runs with a zero file size limit
  // (EFBIG on the first byte; Node ignores SIGXFSZ).
  const writer = spawn(
    'bash',
    [
      '-c',
      'ulimit -f 0 && exec "$0" "$@"',
      process.execPath,
      '--input-type=module',
      '-e',
      `import { fsStorage } from ${JSON.stringify(FS_JS)};
       try { await fsStorage(process.argv[1]).lock('memdex', async () => {}); console.log('locked'); }
       catch (err) { console.log(err.code, err.reason); }`,
      dir,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  writer.stdout.on('data', (d) => (out += d));
  await once(writer, 'exit');
  assert.equal(out.trim(), 'STORAGE QUOTA_EXCEEDED');
  assert.deepEqual(readdirSync(join(dir, 'memdex')), [], 'no lock file left');
  const started = Date.now();
  await fsStorage(dir).lock('memdex', async () => {});
  assert.ok(Date.now() - started < 1000, 'the next writer takes the lock at once');
});

test('temporary files of killed writers are cleaned: manifest.*.tmp~ at the next commit, blob ones at the next listing', async (t) => {
  const dir = tempDir(t);
  const index = await Memdex.open({ storage: 'fs', dir, autoCommit: false });
  index.add({ id: 'a', text: 'first' });
  await index.commit();
  const idx = join(dir, 'memdex');
  const child = await liveProcess(t);
  const old = new Date(Date.now() - 5 * 60_000);
  const files = {
    // A dead writer's (PID 4194305 is above Linux's pid_max), minutes old: removed.
    deadManifest: join(idx, 'manifest.4194305-0a1b2c3d4e5f.tmp~'),
    deadBlob: join(idx, 'blob', 'deadbeef.4194305-0a1b2c3d4e5f.tmp~'),
    // A live writer's: kept (a put in progress).
    liveManifest: join(idx, `manifest.${child.pid}-0a1b2c3d4e5f.tmp~`),
  };
  for (const f of Object.values(files)) {
    writeFileSync(f, 'partial');
    utimesSync(f, old, old);
  }
  index.add({ id: 'b', text: 'second' });
  await index.commit();
  assert.equal(existsSync(files.deadManifest), false, 'a dead writer\'s manifest tmp is removed');
  assert.equal(existsSync(files.deadBlob), false, 'a dead writer\'s blob tmp is removed');
  assert.equal(existsSync(files.liveManifest), true, 'a live writer\'s tmp is kept');
  await index.close();
});
