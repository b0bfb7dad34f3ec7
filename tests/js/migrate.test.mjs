// Schema changes that keep every memory (issue 29, acceptance 3), on the
// frozen fixture tests/fixtures/schema-v3 (today's format, built with its
// own schema by scripts/gen-schema-fixture) through the Node fs adapter:
// an extended schema upgrades it in place; a new analyzer is SCHEMA and
// Memdex.migrate / `memdex migrate` rebuild it, atomically, which a
// subprocess SIGKILLed after each of its storage writes shows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Memdex } from '../../pkg/node.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/schema-v3', import.meta.url));
const CHILD = fileURLToPath(new URL('./support/migrate-child.mjs', import.meta.url));
const CLI = fileURLToPath(new URL('../../pkg/cli.js', import.meta.url));
const LIVE = ['m0', 'm1', 'm2', 'm3', 'm4', 'm6', 'm7', 'm8', 'm9']; // m5 was deleted

/** A private copy of the fixture (tests write into it). */
function fixtureCopy(t) {
  const dir = mkdtempSync(join(tmpdir(), 'memdex-schema-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(FIXTURE, dir, { recursive: true });
  return dir;
}

const open = (dir, options = {}) => Memdex.open({ storage: 'fs', dir, name: 'memories', autoCommit: false, ...options });

/** The acceptance's extension: a keyword field, a changed weight, a vector field (and more kinds). */
const EXTENDED = {
  title: { type: 'text', weight: 3 },
  abstract: 'text',
  area: 'keyword',
  budget: 'number',
  archived: 'boolean',
  a_vec: { type: 'vector', dimensions: 2 },
};

/** Ids and scores over the old fields (text only, so the title weight does not enter), filters and vectors. */
function fingerprint(index) {
  const text = { fields: { text: 1 }, limit: 50 };
  const rank = (q, o) => index.search(q, o).hits.map((h) => [h.id, h.score]);
  return [
    ...['deploy', 'deploy friday', 'segments', '"dark mode"', 'wasm*', 'memories'].map((q) => rank(q, text)),
    rank('', { ...text, filter: { kind: 'rule' } }),
    rank('deploy', { ...text, filter: { priority: { gte: 3 }, done: false } }),
    rank('', { vector: [0, 0, 1, 0.25], vectorField: 'embedding', limit: 50 }),
  ];
}

const documents = (index) => LIVE.map((id) => index.get(id, { vectors: true }));

test('the frozen fixture opens with an extended schema: every document and its results kept, new fields on the next write', async (t) => {
  const dir = fixtureCopy(t);
  const old = await open(dir);
  const before = fingerprint(old);
  const docs = documents(old);
  // Weights are relative (scaled by the heaviest): title 2 -> 3 keeps a
  // title-only match's score and lowers a text-only one's (text's share
  // goes from 1/2 to 1/3).
  const shares = (index) => ({ titleOnly: index.search('storage').hits[0].score, textOnly: index.search('dark').hits[0].score });
  const sharesBefore = shares(old);
  old.free();

  const up = await open(dir, { schema: EXTENDED });
  assert.equal(up.size, 9);
  assert.deepEqual(fingerprint(up), before, 'same ids and scores over the old fields');
  assert.deepEqual(documents(up), docs, 'every document keeps its fields, vectors and links');
  const sharesAfter = shares(up);
  assert.equal(sharesAfter.titleOnly, sharesBefore.titleOnly, 'the heaviest field still weighs 1');
  assert.ok(sharesAfter.textOnly < sharesBefore.textOnly, `the title weight 3 applies: text's share fell (${sharesAfter.textOnly} < ${sharesBefore.textOnly})`);
  assert.deepEqual(up.related('m6').map((h) => h.id), ['m7']);

  up.add({ id: 'x1', title: 'Budget', text: 'quarterly review', abstract: 'planning', area: 'finance', budget: 1200, archived: false, a_vec: [1, 0] });
  const gained = (index) => {
    assert.deepEqual(index.search('', { filter: { area: 'finance' } }).hits.map((h) => h.id), ['x1']);
    assert.deepEqual(index.search('', { filter: { budget: { gt: 1000 }, archived: false } }).hits.map((h) => h.id), ['x1']);
    assert.deepEqual(index.search('planning').hits.map((h) => h.id), ['x1']);
    assert.equal(index.search('', { vector: [1, 0], vectorField: 'a_vec' }).hits[0].id, 'x1');
  };
  gained(up);
  // A reload (what CONFLICT recovery does) keeps the upgrade: the open options' schema applies again.
  await up.reload();
  assert.equal(up.get('x1'), undefined, 'the uncommitted write is dropped');
  up.add({ id: 'x1', title: 'Budget', text: 'quarterly review', abstract: 'planning', area: 'finance', budget: 1200, archived: false, a_vec: [1, 0] });
  await up.commit();
  await up.close();

  const reopened = await open(dir); // the stored (upgraded) schema
  gained(reopened);
  reopened.remove('x1');
  assert.deepEqual(fingerprint(reopened), before, 'after the commit: same results again');
  assert.deepEqual(documents(reopened), docs);
  reopened.free();
  // The old schema after the upgrade: fields it leaves out are kept (a subset is accepted).
  const older = await open(dir, { schema: { title: { type: 'text', weight: 2 } } });
  gained(older);
  older.remove('x1');
  assert.deepEqual(shares(older), sharesBefore, 'title weight 2 again: the scores of before');
  older.free();
});

test('an upgrade that is never committed leaves the stored index as it was', async (t) => {
  const dir = fixtureCopy(t);
  const up = await open(dir, { schema: { area: 'keyword' } });
  up.add({ id: 'x', text: 'new', area: 'ops' });
  up.free(); // dropped, never committed
  const again = await open(dir);
  assert.equal(again.size, 9);
  assert.throws(() => again.add({ id: 'y', area: 'ops' }), (err) => err.code === 'SCHEMA' && /`area`/.test(err.message));
  again.free();
});

test('a change that cannot apply in place is SCHEMA naming the field and the change, and pointing at migrate', async (t) => {
  const dir = fixtureCopy(t);
  const cases = [
    [{ schema: { kind: 'number' } }, 'kind', 'type'],
    [{ schema: { text: { type: 'text', language: 'french' } } }, 'text', 'language'],
    [{ schema: { embedding: { type: 'vector', dimensions: 8 } } }, 'embedding', 'dimensions'],
    [{ language: 'german' }, '', 'analyzer'],
  ];
  for (const [options, field, change] of cases) {
    await assert.rejects(open(dir, options), (err) => {
      assert.equal(err.code, 'SCHEMA');
      assert.equal(err.data.field, field);
      assert.equal(err.data.change, change);
      assert.match(err.message, /Memdex\.migrate\(\{ from, to \}\)/);
      assert.match(err.message, /memdex migrate <dir> --schema file\.json/);
      return true;
    });
  }
});

test('Memdex.migrate rebuilds under a new analyzer, in place or into a new name, keeping documents, vectors and links', async (t) => {
  const dir = fixtureCopy(t);
  const old = await open(dir);
  const docs = documents(old);
  assert.equal(old.search('deploys').hits.length, 2, 'english stems deploys to deploy');
  old.free();

  const to = { name: 'plain', language: 'none', schema: { area: 'keyword' } };
  assert.deepEqual(await Memdex.migrate({ from: { storage: 'fs', dir, name: 'memories' }, to }), { name: 'plain', documents: 9, generation: 1 });
  const plain = await open(dir, { name: 'plain' });
  assert.deepEqual(documents(plain), docs);
  assert.deepEqual(plain.search('deploys').hits.map((h) => h.id), ['m0'], 'no stemming now');
  assert.deepEqual(plain.related('m6').map((h) => h.id), ['m7']);
  plain.add({ id: 'x', text: 'y', area: 'ops' });
  plain.free();
  const kept = await open(dir);
  assert.deepEqual(documents(kept), docs, 'the source stays as it was');
  kept.free();
  await assert.rejects(Memdex.migrate({ from: { storage: 'fs', dir, name: 'memories' }, to }), (err) => err.code === 'USAGE' && /already exists/.test(err.message));

  const inPlace = await Memdex.migrate({ from: { storage: 'fs', dir, name: 'memories' }, to: { language: 'none' } });
  assert.equal(inPlace.documents, 9);
  const migrated = await open(dir);
  assert.deepEqual(documents(migrated), docs);
  assert.deepEqual(migrated.search('deploys').hits.map((h) => h.id), ['m0']);
  migrated.free();
  // `defaultSchema: false` drops the fields the new schema leaves out.
  await Memdex.migrate({ from: { storage: 'fs', dir, name: 'memories' }, to: { defaultSchema: false, schema: { title: 'text', text: 'text' } } });
  const slim = await open(dir);
  assert.deepEqual(Object.keys(slim.get('m0')).sort(), ['id', 'namespace', 'text', 'title']);
  slim.free();
  await assert.rejects(Memdex.migrate({ from: { dir }, to: { colour: 1 } }), (err) => err.code === 'USAGE' && /to\.colour/.test(err.message));
  await assert.rejects(Memdex.migrate({ from: { dir }, to: {} }), (err) => err.code === 'USAGE' && /from\.storage/.test(err.message));
});

test('memdex migrate <dir> --schema file.json', async (t) => {
  const dir = fixtureCopy(t);
  const file = join(dir, 'schema.json');
  writeFileSync(file, JSON.stringify({ schema: { area: 'keyword' }, analyzer: { language: 'none' } }));
  const run = spawnSync(process.execPath, [CLI, 'migrate', dir, '--name', 'memories', '--schema', file], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /migrated index 'memories': 9 documents/);
  const index = await open(dir);
  assert.deepEqual(index.search('deploys').hits.map((h) => h.id), ['m0']);
  index.add({ id: 'z', text: 'z', area: 'ops' });
  index.free();
  const copy = () => spawnSync(process.execPath, [CLI, 'migrate', dir, '--name', 'memories', '--to', 'n1'], { encoding: 'utf8' });
  assert.equal(copy().status, 0);
  const again = copy();
  assert.equal(again.status, 1);
  assert.match(again.stderr, /^memdex migrate: USAGE: .*'n1' already exists/);
  writeFileSync(file, JSON.stringify({ kind: 'number' }));
  const typed = spawnSync(process.execPath, [CLI, 'migrate', dir, '--name', 'memories', '--schema', file, '--to', 'n2'], { encoding: 'utf8' });
  assert.equal(typed.status, 1, 'keyword values are not numbers');
  assert.match(typed.stderr, /^memdex migrate: SCHEMA: /);
});

/** Runs the migrate child, killed after `killAfter` storage writes; returns its writes when it finished. */
function runChild(dir, killAfter, to) {
  const run = spawnSync(process.execPath, [CHILD, dir, String(killAfter), to], { encoding: 'utf8' });
  if (run.signal === 'SIGKILL') return undefined;
  assert.equal(run.status, 0, run.stderr);
  return Number(/writes (\d+)/.exec(run.stdout)[1]);
}

for (const to of ['memories', 'rebuilt']) {
  const where = to === 'memories' ? 'in place' : 'into a new name';
  test(`migrate ${where}, SIGKILLed after each of its storage writes: the old index or the complete new one, never a mix`, async (t) => {
    const reference = fixtureCopy(t);
    const old = await open(reference);
    const docs = documents(old);
    old.free();
    const total = runChild(reference, 1e9, to);
    assert.ok(total >= 4, `a migration writes a marker, blobs, the manifest and cleans up (${total})`);
    const states = new Set();
    for (let k = 0; k <= total; k++) {
      const dir = fixtureCopy(t);
      assert.equal(runChild(dir, k, to), undefined, `killed after write ${k}`);
      // The source: every document, as before the migration or rebuilt.
      const source = await open(dir);
      assert.deepEqual(documents(source), docs, `kill after ${k}: every document of the old index`);
      const sourceStemmed = source.search('deploys').hits.length === 2;
      source.free();
      let state;
      if (to === 'memories') {
        state = sourceStemmed ? 'old' : 'new';
      } else {
        assert.ok(sourceStemmed, 'the source is never touched');
        const target = await open(dir, { name: to });
        if (target.generation === 0) {
          assert.equal(target.size, 0, 'absent');
          state = 'absent';
        } else {
          assert.deepEqual(documents(target), docs, 'complete');
          assert.deepEqual(target.search('deploys').hits.map((h) => h.id), ['m0']);
          state = 'new';
        }
        target.free();
      }
      states.add(state);
      // What a crash left behind does not stand in the way of the next migration.
      if (state !== 'new') {
        await Memdex.migrate({ from: { storage: 'fs', dir, name: 'memories' }, to: { name: to, language: 'none' } });
        const done = await open(dir, { name: to });
        assert.deepEqual(documents(done), docs);
        done.free();
      }
    }
    assert.deepEqual([...states].sort(), to === 'memories' ? ['new', 'old'] : ['absent', 'new']);
  });
}
