// Every ```js block of README.md and pkg-template/README.md runs as written
// in Node against the built package (pkg/), each in its own directory, and
// prints what a following ```text output block shows. ```js browser blocks
// run in Chromium (tests/e2e/readme.test.mjs) and ```js fragment blocks are
// parts of a program: here both only have their syntax checked. See
// tests/js/readme-snippets.mjs for the info strings.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { snippets } from './readme-snippets.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
// Under the repository, so that the package's own dependencies (the MCP
// SDK) resolve from its node_modules, as they would from an app's.
const work = `${root}target/readme-snippets/`;

function setup() {
  rmSync(work, { recursive: true, force: true });
  mkdirSync(`${work}node_modules`, { recursive: true });
  symlinkSync(`${root}pkg`, `${work}node_modules/memdex`, 'dir');
}

const all = snippets().filter((s) => s.mode !== 'ts'); // ts blocks: tests/js/types.test.mjs

test('the READMEs have runnable snippets', () => {
  assert.ok(all.filter((s) => s.mode === 'node').length >= 8, `${all.length} blocks`);
  assert.ok(all.some((s) => s.output !== undefined), 'no ```text output block');
});

setup();
for (const [i, s] of all.entries()) {
  test(`${s.file}:${s.line} (${s.mode})`, () => {
    const dir = `${work}${i}/`;
    mkdirSync(dir, { recursive: true });
    writeFileSync(`${dir}snippet.mjs`, `${s.code}\n`);
    if (s.mode !== 'node') {
      const check = spawnSync(process.execPath, ['--check', `${dir}snippet.mjs`], { encoding: 'utf8' });
      assert.equal(check.status, 0, `syntax error:\n${check.stderr}`);
      return;
    }
    const run = spawnSync(process.execPath, ['snippet.mjs'], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 60_000,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    assert.equal(run.error, undefined, `could not run: ${run.error}`);
    assert.equal(run.status, 0, `exited ${run.status}:\n${run.stdout}\n${run.stderr}`);
    if (s.output !== undefined) {
      assert.deepEqual(run.stdout.trimEnd().split('\n'), s.output.trimEnd().split('\n'), 'printed output differs from the README');
    }
    assert.ok(existsSync(dir));
  });
}

test('an uncaught error in Node prints its message, not a kilobyte of minified code', () => {
  const dir = `${work}uncaught/`;
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}main.mjs`, "import { Memdex } from 'memdex';\nconst index = await Memdex.open();\nindex.add({ title: 'no id' });\n");
  const run = spawnSync(process.execPath, ['main.mjs'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  assert.equal(run.status, 1);
  assert.match(run.stderr, /MemdexError: schema error on field `id`: is missing in the document \{title\}: every document needs a non-empty string `id`/);
  const longest = Math.max(...run.stderr.split('\n').map((l) => l.length));
  assert.ok(longest <= 200, `a ${longest}-character line in:\n${run.stderr}`);
  assert.ok(run.stderr.length < 1200, `${run.stderr.length} bytes:\n${run.stderr}`);
});
