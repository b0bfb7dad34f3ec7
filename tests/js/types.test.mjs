// The hand-written typings: tests/types/usage.ts must compile with
// `tsc --strict --noEmit` against the built package (resolved through the
// exports map), and every `@ts-expect-error` in it must be a real error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const types = `${root}tests/types/`;

test('tests/types/usage.ts compiles with tsc --strict --noEmit', () => {
  const link = `${types}node_modules/memdex`;
  if (!existsSync(link)) {
    mkdirSync(`${types}node_modules`, { recursive: true });
    symlinkSync('../../../pkg', link, 'dir');
  }
  const tsc = `${root}node_modules/.bin/tsc`;
  const run = spawnSync(tsc, ['-p', `${types}tsconfig.json`, '--strict', '--noEmit', '--pretty', 'false'], {
    encoding: 'utf8',
  });
  assert.equal(run.error, undefined, `could not run ${tsc}: ${run.error}`);
  assert.equal(run.status, 0, `tsc failed:\n${run.stdout}${run.stderr}`);
});
