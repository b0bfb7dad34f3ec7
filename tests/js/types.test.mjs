// The hand-written typings: tests/types/usage.ts must compile with
// `tsc --strict --noEmit` against the built package (resolved through the
// exports map), and every `@ts-expect-error` in it must be a real error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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

test('the ```ts blocks of the READMEs compile with tsc --strict (their @ts-expect-error lines must fail)', async () => {
  const { snippets } = await import('./readme-snippets.mjs');
  const blocks = snippets().filter((s) => s.mode === 'ts');
  assert.ok(blocks.length >= 1, 'no ts block in the READMEs');
  const dir = `${root}target/readme-types/`;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(`${dir}node_modules`, { recursive: true });
  symlinkSync(`${root}pkg`, `${dir}node_modules/memdex`, 'dir');
  writeFileSync(`${dir}package.json`, '{ "type": "module" }\n');
  const files = blocks.map((s, i) => {
    const name = `block${i}.ts`;
    writeFileSync(`${dir}${name}`, `// ${s.file}:${s.line}\n${s.code}\nexport {};\n`);
    return name;
  });
  const config = JSON.parse(readFileSync(`${types}tsconfig.json`, 'utf8'));
  writeFileSync(`${dir}tsconfig.json`, JSON.stringify({ ...config, compilerOptions: { ...config.compilerOptions, types: ['node'], typeRoots: [`${root}node_modules/@types`] }, files }));
  const run = spawnSync(`${root}node_modules/.bin/tsc`, ['-p', `${dir}tsconfig.json`, '--pretty', 'false'], { encoding: 'utf8' });
  assert.equal(run.status, 0, `tsc failed:\n${run.stdout}${run.stderr}`);
});
