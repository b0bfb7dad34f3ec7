// The figures the READMEs state, checked against the built package (pkg/),
// so that they cannot go stale:
// - the bundle sizes of pkg-template/README.md, against the measure of the
//   size gate (scripts/check-size.mjs) and the same measure without a
//   bundler, within a tolerance (the text says "about");
// - the number of MCP tools, and the root README's list of them, against
//   the package's tool definitions;
// - the root README's table of `make test` stages, against scripts/test-all.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { memoryTools } from '../../pkg/tools.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const pkg = join(root, 'pkg');
const read = (file) => readFileSync(join(root, file), 'utf8').replace(/\s+/g, ' ');
const READMES = ['README.md', 'pkg-template/README.md'];

// "About N KB": within 5 % of the measure (KB = 1,000 bytes).
const TOLERANCE = 0.05;
const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;

/** The one "about N KB gzipped" figure of the package README that `pattern` matches. */
function statedKB(pattern) {
  const found = [...read('pkg-template/README.md').matchAll(pattern)];
  assert.equal(found.length, 1, `pkg-template/README.md states ${pattern} once`);
  return Number(found[0][1]) * 1000;
}

function assertAbout(stated, measured, what) {
  const off = Math.abs(stated - measured) / measured;
  assert.ok(
    off <= TOLERANCE,
    `${what}: the README says about ${stated / 1000} KB, the package measures ${measured} B (${(off * 100).toFixed(1)} % off); write about ${Math.round(measured / 1000)} KB`,
  );
}

test('README: the bundled size (wasm + bundled browser JS, gzipped) is the size gate’s measure', () => {
  const r = spawnSync(process.execPath, [join(root, 'scripts/check-size.mjs'), pkg], { encoding: 'utf8' });
  const bytes = (label) => {
    const m = new RegExp(`${label}[^:]*: (\\d+) bytes`).exec(r.stdout);
    assert.ok(m, `check-size printed the ${label} size:\n${r.stdout}${r.stderr}`);
    return Number(m[1]);
  };
  const measured = bytes('wasm') + bytes('browser JS bundle');
  assertAbout(statedKB(/about (\d+) KB gzipped for the wasm plus the bundled browser JS/g), measured, 'wasm + bundled JS');
});

test('README: the unbundled size (wasm + every browser file the entry imports, each gzipped) is measured', async () => {
  // The files a page fetches from pkg/index.js, as shipped (minified), each
  // gzipped on its own as a server would send it.
  const { metafile } = await build({
    entryPoints: [join(pkg, 'index.js')],
    bundle: true,
    write: false,
    metafile: true,
    format: 'esm',
    platform: 'browser',
    external: ['*.wasm'],
    logLevel: 'silent',
    absWorkingDir: root,
  });
  const files = Object.keys(metafile.inputs);
  assert.ok(files.some((f) => f.endsWith('core.js')) && files.some((f) => f.endsWith('memdex.js')), files.join(' '));
  const js = files.reduce((sum, f) => sum + gz(readFileSync(join(root, f))), 0);
  // The wasm the entry fetches first (languages.js): English.
  const measured = gz(readFileSync(join(pkg, 'memdex-english_bg.wasm'))) + js;
  assertAbout(statedKB(/a page loads about (\d+) KB gzipped/g), measured, 'wasm + unbundled JS');
});

const NUMBERS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];

test('READMEs: the number of MCP tools is the package’s', () => {
  const count = memoryTools.length;
  for (const file of READMES) {
    const claims = [...read(file).matchAll(/\b(\w+) (?:memory )?tools\b/gi)].filter((m) => NUMBERS.includes(m[1].toLowerCase()) || /^\d+$/.test(m[1]));
    assert.ok(claims.length > 0, `${file} states how many tools there are`);
    for (const [phrase, n] of claims) {
      const stated = /^\d+$/.test(n) ? Number(n) : NUMBERS.indexOf(n.toLowerCase());
      assert.equal(stated, count, `${file}: "${phrase}", but the package has ${count} (${memoryTools.map((t) => t.name).join(', ')})`);
    }
  }
});

test('README: the tools it lists are the package’s, in its order', () => {
  const m = /with \w+ tools \(([^)]+)\)/.exec(read('README.md'));
  assert.ok(m, 'README.md lists the tools');
  assert.deepEqual(
    m[1].split(/,\s*/),
    memoryTools.map((t) => t.name.replace(/^memory_/, '')),
  );
});

test('README: the stage table of make test names every stage of scripts/test-all', () => {
  const stages = [...readFileSync(join(root, 'scripts/test-all'), 'utf8').matchAll(/^\s*run_stage ([\w-]+)/gm)].map((m) => m[1]);
  assert.ok(stages.length >= 10, stages.join(' '));
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const start = readme.indexOf('| stage | what |');
  assert.ok(start >= 0, 'README.md has the stage table');
  const table = readme.slice(start, readme.indexOf('\n\n', start));
  const listed = [...table.matchAll(/^\| ([\w-]+(?:, [\w-]+)*) \|/gm)].flatMap((m) => m[1].split(', ')).filter((n) => n !== 'stage');
  assert.deepEqual(listed, stages);
});
