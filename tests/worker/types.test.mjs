// worker/src is type-checked: `// @ts-check` JavaScript with JSDoc types,
// against the package's hand-written declarations (pkg-template/*.d.ts)
// and the runtime declarations in worker/src/*.d.ts (worker/tsconfig.json).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

test('tsc finds no type errors in worker/src', () => {
  const r = spawnSync(`${ROOT}/node_modules/.bin/tsc`, ['-p', 'worker', '--pretty', 'false'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
});

test('every module of worker/src opts into checking and stays small', () => {
  const files = readdirSync(`${ROOT}/worker/src`, { recursive: true }).filter((f) => f.endsWith('.js'));
  assert.ok(files.length >= 15);
  for (const f of files) {
    const text = readFileSync(`${ROOT}/worker/src/${f}`, 'utf8');
    assert.ok(text.startsWith('// @ts-check'), `${f} does not start with // @ts-check`);
    assert.ok(text.split('\n').length < 400, `${f} has ${text.split('\n').length} lines`);
  }
});
