// The lexical build (`memdex/lexical`, pkg/memdex-lexical_bg.wasm) against
// the full one (`memdex`), each in its own process (support/build-probe.mjs):
// the same answers to lexical searches, a USAGE naming 'memdex' for vector,
// hybrid, link, rerank and maintenance calls, and the same index bytes
// whichever build wrote them (the lexical build keeps vectors and links
// as data).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = fileURLToPath(new URL('../../pkg/', import.meta.url));
const probe = fileURLToPath(new URL('support/build-probe.mjs', import.meta.url));
const FULL = join(pkg, 'node.js');
const LEXICAL = join(pkg, 'lexical-node.js');

/** @returns {any} the probe's JSON */
const run = (entry, step, file) => JSON.parse(execFileSync(process.execPath, [probe, entry, step, ...(file ? [file] : [])], { encoding: 'utf8' }));

test('lexical build: the same hits, scores, totals, suggestions and documents as the full build', () => {
  const full = run(FULL, 'answers');
  const lexical = run(LEXICAL, 'answers');
  assert.equal(full.build, 'full');
  assert.equal(lexical.build, 'lexical');
  assert.ok(full.searches > 4000 && full.hits > 10000, `${full.searches} searches, ${full.hits} hits`);
  assert.deepEqual({ ...lexical, build: 'full' }, full);
});

test('lexical build: vector, hybrid, expand, related, diversity, dedupe, migrate and recover fail with USAGE naming the full build', () => {
  const full = run(FULL, 'refused');
  const lexical = run(LEXICAL, 'refused');
  for (const call of ['vector', 'hybrid', 'expand', 'related', 'diversity', 'dedupe', 'migrate', 'recover']) {
    assert.ok(full[call].value > 0, `the full build answers ${call}: ${JSON.stringify(full[call])}`);
    assert.equal(lexical[call].code, 'USAGE', `${call}: ${JSON.stringify(lexical[call])}`);
    assert.match(lexical[call].message, /not in the lexical build \(memdex\/lexical\); import the full build from 'memdex'/);
  }
  // `strategy: 'auto'` on a relation question: the same rewritten query; only the full build expands.
  assert.deepEqual(full.auto.value.expand, { hops: 1 });
  assert.deepEqual({ ...full.auto.value, expand: undefined }, { ...lexical.auto.value, expand: undefined });
  assert.equal(lexical.auto.value.query, 'garden');
  assert.equal('expand' in lexical.auto.value, false, JSON.stringify(lexical.auto.value));
});

test('lexical build: index bytes are the full build’s, and each build reopens and rewrites what the other wrote', () => {
  const dir = mkdtempSync(join(tmpdir(), 'memdex-builds-'));
  try {
    const [fullFile, lexicalFile] = [join(dir, 'full.bin'), join(dir, 'lexical.bin')];
    const full = run(FULL, 'export', fullFile);
    assert.equal(run(LEXICAL, 'export', lexicalFile).md5, full.md5, 'both builds export the same bytes');
    const byLexical = run(LEXICAL, 'reopen', fullFile);
    const byFull = run(FULL, 'reopen', lexicalFile);
    assert.deepEqual({ ...byLexical, build: 'full' }, byFull, 'the same index after the same write');
    assert.deepEqual(byLexical.zebra, ['new']);
    assert.ok(byLexical.kept.emb.length === 3 && byLexical.kept.links.length === 1, JSON.stringify(byLexical.kept));
    // The full build searches the vectors and links the lexical build wrote.
    const check = `
      import { Memdex } from ${JSON.stringify(FULL)};
      import { readFileSync } from 'node:fs';
      const index = await Memdex.import(new Uint8Array(readFileSync(${JSON.stringify(`${fullFile}.out`)})));
      console.log(JSON.stringify([index.search('', { vector: [0, 0, 1], limit: 1 }).hits[0].id, index.related('new').length]));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', check], { encoding: 'utf8' });
    assert.deepEqual(JSON.parse(out), ['new', 1]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('one build per process: opening the other entry fails with USAGE naming both', () => {
  const both = `
    import { Memdex } from ${JSON.stringify(FULL)};
    import { Memdex as Lexical } from ${JSON.stringify(LEXICAL)};
    await Memdex.open();
    try { await Lexical.open(); console.log('opened'); } catch (err) { console.log(err.code + ' ' + err.message); }`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', both], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^USAGE .*already runs memdex's full build \('memdex'\).*'memdex' or 'memdex\/lexical', not both/);
});
