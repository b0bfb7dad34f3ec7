// Node tests of the built npm package (pkg/), run with `node --test`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { Memdex, MemdexError } from '../../pkg/node.js';

const PKG = fileURLToPath(new URL('../../pkg/', import.meta.url));
const memories = readFileSync(new URL('../../www/memories.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l));

test('package.json: ESM, exports map with types first and all conditions', () => {
  const pkg = JSON.parse(readFileSync(join(PKG, 'package.json'), 'utf8'));
  assert.equal(pkg.name, 'memdex');
  assert.equal(pkg.type, 'module');
  assert.equal(pkg.sideEffects, false);
  const conditions = Object.keys(pkg.exports['.']);
  assert.equal(conditions[0], 'types');
  for (const c of ['browser', 'node', 'workerd', 'default']) assert.ok(conditions.includes(c), c);
  assert.equal(conditions.at(-1), 'default');
  for (const f of pkg.files) {
    // Directories (wasm-bindgen's `snippets/`) must exist and hold files;
    // `*` patterns (the source maps) must match a file in their folder.
    if (f.endsWith('/')) assert.ok(readdirSync(join(PKG, f), { recursive: true }).length > 0, f);
    else if (f.includes('*')) {
      const suffix = basename(f).slice(basename(f).indexOf('*') + 1);
      assert.ok(readdirSync(join(PKG, dirname(f))).some((n) => n.endsWith(suffix)), f);
    } else assert.doesNotThrow(() => readFileSync(join(PKG, f)), f);
  }
  assert.ok(readFileSync(join(PKG, 'memdex_bg.wasm')).length > 1000);
});

test('shipped JS is minified, names kept, with a source map holding the commented original', () => {
  const TEMPLATE = fileURLToPath(new URL('../../pkg-template/', import.meta.url));
  const shipped = readdirSync(PKG, { recursive: true }).map(String).filter((f) => f.endsWith('.js'));
  // Every hand-written entry point and adapter, plus wasm-bindgen's glue.
  const fromTemplate = readdirSync(TEMPLATE, { recursive: true }).map(String).filter((f) => f.endsWith('.js'));
  for (const f of [...fromTemplate, 'memdex.js']) assert.ok(shipped.includes(f), f);
  for (const f of shipped) {
    const code = readFileSync(join(PKG, f), 'utf8');
    assert.ok(code.endsWith(`//# sourceMappingURL=${basename(f)}.map\n`), f);
    const map = JSON.parse(readFileSync(join(PKG, `${f}.map`), 'utf8'));
    assert.equal(map.version, 3, f);
    assert.deepEqual(map.sources, [`memdex-source/${f}`], f);
    assert.ok(map.mappings.length > 0, f);
    if (fromTemplate.includes(f)) {
      const original = readFileSync(join(TEMPLATE, f), 'utf8');
      assert.equal(map.sourcesContent[0], original, f);
      // Comments are gone from the shipped file, not from the original.
      if (/^\s*\/\/ /m.test(original)) assert.ok(code.length < original.length, f);
      assert.ok(!/^\s*\/\/ /m.test(code), f);
    }
  }
  // Names survive minification: stack traces and `instanceof` users see them.
  assert.match(readFileSync(join(PKG, 'memdex-error.js'), 'utf8'), /class MemdexError extends Error/);
  assert.match(readFileSync(join(PKG, 'core.js'), 'utf8'), /class MemdexBase\b/);
});

test('`import "memdex"` resolves through the exports map (node and browser conditions)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'memdex-resolve-'));
  try {
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(PKG, join(dir, 'node_modules', 'memdex'), 'dir');
    const resolve = (...flags) =>
      execFileSync(process.execPath, [...flags, '--input-type=module', '-e', 'console.log(import.meta.resolve("memdex"))'], {
        cwd: dir,
        encoding: 'utf8',
      }).trim();
    assert.match(resolve(), /\/node\.js$/);
    assert.match(resolve('--conditions=browser'), /\/index\.js$/);
    assert.match(resolve('--conditions=workerd'), /\/workerd\.js$/);
    const resolveTools = execFileSync(process.execPath, ['--input-type=module', '-e', 'console.log(import.meta.resolve("memdex/tools"))'], {
      cwd: dir,
      encoding: 'utf8',
    }).trim();
    assert.match(resolveTools, /\/tools\.js$/);
    // End to end through the package name, in a fresh process.
    const out = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { Memdex } from 'memdex';
         const m = await Memdex.create();
         m.add({ id: 'a', title: 'hello wasm', text: 'from node' });
         console.log(m.search('wasm').hits[0].id);`,
      ],
      { cwd: dir, encoding: 'utf8' },
    ).trim();
    assert.equal(out, 'a');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('add, search, get, remove, stats on sample memories', async () => {
  const index = await Memdex.create();
  assert.equal(index.addAll(memories), memories.length);
  assert.equal(index.stats().documents, memories.length);

  const { hits, mode } = index.search('deploying on friday', { limit: 5 });
  assert.equal(mode, 'or');
  assert.ok(hits.length > 0);
  const top = hits[0];
  assert.equal(top.fields.title, 'Never deploy on Fridays');
  assert.equal(top.namespace, 'agent:coder');
  assert.ok(top.matchedTerms.length > 0);
  assert.ok(top.score > 0);
  for (let i = 1; i < hits.length; i++) assert.ok(hits[i - 1].score >= hits[i].score, 'ranked by score');

  const id = top.id;
  assert.equal(index.get(id).title, 'Never deploy on Fridays');
  assert.equal(index.get('no-such-id'), undefined);
  assert.equal(index.remove(id), true);
  assert.equal(index.remove(id), false);
  assert.equal(index.get(id), undefined);
  assert.ok(!index.search('deploying on friday').hits.some((h) => h.id === id));
  assert.equal(index.stats().documents, memories.length - 1);
  index.free();
});

test('AND mode requires every term; limit and offset page results', async () => {
  const index = await Memdex.create();
  index.addAll(memories);
  const and = index.search('refund billing', { mode: 'and' });
  assert.equal(and.mode, 'and');
  assert.ok(and.hits.length >= 1);
  const all = index.search('the memory index', { limit: 50 }).hits;
  const page = index.search('the memory index', { limit: 2, offset: 1 }).hits;
  assert.deepEqual(
    page.map((h) => h.id),
    all.slice(1, 3).map((h) => h.id),
  );
});

test('upsert by id replaces the document', async () => {
  const index = await Memdex.create();
  index.add({ id: 'x', title: 'old title', text: 'alpha' });
  index.add({ id: 'x', title: 'new title', text: 'beta' });
  assert.equal(index.stats().documents, 1);
  assert.equal(index.get('x').title, 'new title');
  assert.equal(index.search('alpha').hits.length, 0);
  assert.equal(index.search('beta').hits[0].id, 'x');
});

test('errors are MemdexError with a stable code', async () => {
  const index = await Memdex.create();
  const expectCode = (fn, code) =>
    assert.throws(fn, (err) => {
      assert.ok(err instanceof MemdexError, `expected MemdexError, got ${err?.constructor?.name}`);
      assert.ok(err instanceof Error);
      assert.equal(err.name, 'MemdexError');
      assert.equal(err.code, code);
      assert.ok(err.message.length > 0);
      return true;
    });
  expectCode(() => index.add({ title: 'no id' }), 'SCHEMA');
  expectCode(() => index.add({ id: 'y', color: 'undeclared field' }), 'SCHEMA');
  expectCode(() => index.search('x', { mode: 'bogus' }), 'USAGE');
  expectCode(() => index.search('x', { limit: 'ten' }), 'USAGE');
  expectCode(() => new Memdex(), 'USAGE');
  await assert.rejects(
    Memdex.create({ schema: { title: { type: 'nope' } } }),
    (err) => err instanceof MemdexError && err.code === 'SCHEMA',
  );
});

test('custom schema through create(options): only your fields with defaultSchema: false', async () => {
  const index = await Memdex.create({ schema: { body: { type: 'text' }, tag: { type: 'keyword' } }, defaultSchema: false, k1: 1.5 });
  index.add({ id: 'd1', body: 'rust compiled to webassembly', tag: 'x' });
  assert.equal(index.search('webassembly').hits[0].id, 'd1');
  assert.throws(() => index.add({ id: 'd2', title: 'a default field' }), (err) => err.code === 'SCHEMA' && /`title`/.test(err.message));
});

// 0.x removed the deprecated aliases: `schema` + `defaultSchema: false` says
// what `fields` said, and `add` replaces by id as `upsert` did. A caller
// still using them gets a USAGE error that names the replacement, not a
// silently different schema.
test('removed aliases: the `fields` open option and upsert()', async () => {
  for (const open of [() => Memdex.create({ fields: { body: 'text' } }), () => Memdex.recover({ fields: { body: 'text' } })]) {
    await assert.rejects(open, (err) => err.code === 'USAGE' && /`fields` was removed.*`schema`.*`defaultSchema: false`/.test(err.message));
  }
  await assert.rejects(Memdex.import(new Uint8Array(0), { fields: {} }), (err) => err.code === 'USAGE');
  const index = await Memdex.create();
  assert.equal(typeof index.upsert, 'undefined');
});

test('scripts/demo.mjs (terminal half of `make demo`) prints ranked, highlighted results', () => {
  const out = execFileSync(process.execPath, [fileURLToPath(new URL('../../scripts/demo.mjs', import.meta.url))], {
    encoding: 'utf8',
  });
  assert.match(out, new RegExp(`${memories.length} agent memories indexed`));
  // Not a TTY here, so highlights are [brackets]; the top hit comes first.
  assert.match(out, /search: "deploying on friday"[^\n]*\n {2}1\. Never \[deploy\][^\n]*\[Fridays\]/);
});
