// The JavaScript half of `make test`'s static checks (the Rust half is
// fmt + clippy): the shipped package sources (pkg-template/) type-checked by
// tsc with `strict` (checkJs, against the package's own .d.ts files and the
// wasm glue's generated memdex.d.ts from pkg/), no package source over 500
// lines, then ESLint over the package, the Worker, the scripts and the JS
// tests (eslint.config.mjs).
//
//   node scripts/check-js.mjs        (needs pkg/ from make pkg)
import { cpSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';

const root = resolve(new URL('..', import.meta.url).pathname);
const stage = join(root, 'target/check-js');
rmSync(stage, { recursive: true, force: true });
mkdirSync(stage, { recursive: true });
// The sources as they ship, next to the wasm glue's types they import.
cpSync(join(root, 'pkg-template'), stage, { recursive: true, filter: (src) => !src.endsWith('README.md') && !src.endsWith('package.json') });
cpSync(join(root, 'pkg/memdex.d.ts'), join(stage, 'memdex.d.ts'));
writeFileSync(join(stage, 'wasm-module.d.ts'), "declare module '*.wasm' { const module: WebAssembly.Module; export default module; }\n");
writeFileSync(
  join(stage, 'tsconfig.json'),
  JSON.stringify({
    compilerOptions: {
      allowJs: true,
      checkJs: true,
      noEmit: true,
      target: 'es2022',
      module: 'nodenext',
      moduleResolution: 'nodenext',
      skipLibCheck: true,
      types: ['node'],
      typeRoots: [join(root, 'node_modules/@types')],
      lib: ['es2022', 'dom', 'dom.iterable'],
      strict: true,
    },
    include: ['*.js', 'storage/*.js', 'wasm-module.d.ts'],
  }),
);

let failed = 0;
const run = (what, cmd, args, cwd) => {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8' });
  const out = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim();
  if (r.status === 0) console.log(`ok   ${what}`);
  else {
    failed++;
    console.log(`FAIL ${what}\n${out || r.error}`);
  }
};
// Modules stay small enough to read whole (the Rust side's bound is 700).
const MAX_LINES = 500;
const long = readdirSync(join(root, 'pkg-template'), { recursive: true })
  .map(String)
  .filter((f) => f.endsWith('.js'))
  .map((f) => [f, readFileSync(join(root, 'pkg-template', f), 'utf8').split('\n').length - 1])
  .filter(([, lines]) => lines > MAX_LINES);
if (long.length === 0) console.log(`ok   pkg-template/*.js at most ${MAX_LINES} lines`);
else {
  failed++;
  console.log(`FAIL pkg-template/*.js over ${MAX_LINES} lines (split by concern):\n${long.map(([f, n]) => `  ${f}: ${n}`).join('\n')}`);
}
run('tsc --strict --checkJs pkg-template/', join(root, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json', '--pretty', 'false'], stage);
run('eslint', join(root, 'node_modules/.bin/eslint'), ['--max-warnings', '0', '.'], root);
process.exit(failed ? 1 : 0);
