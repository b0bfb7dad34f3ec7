// The JavaScript half of `make test`'s static checks (the Rust half is
// fmt + clippy): no JavaScript file of the repository over 500 lines; the
// shipped package sources (pkg-template/) and the explorer (www/) type-checked
// by tsc with `strict` (checkJs, against the package's own .d.ts files and
// the wasm glue's generated memdex.d.ts from pkg/); then ESLint over the
// package, the Worker, the scripts and the JS tests (eslint.config.mjs).
// The Worker's own strict check is tests/worker/types.test.mjs.
//
//   node scripts/check-js.mjs        (needs pkg/ from make pkg)
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
// Modules stay small enough to read whole (the Rust side's bound is 700):
// every JavaScript file of the repository, at most 500 lines.
const MAX_LINES = 500;
const tracked = spawnSync('git', ['ls-files', '-z', '*.js', '*.mjs'], { cwd: root, encoding: 'utf8' });
const long = (tracked.stdout ?? '')
  .split('\0')
  .filter(Boolean)
  .map((f) => [f, readFileSync(join(root, f), 'utf8').split('\n').length - 1])
  .filter(([, lines]) => lines > MAX_LINES);
if (tracked.status !== 0) {
  failed++;
  console.log(`FAIL listing the JS files: ${tracked.stderr || tracked.error}`);
} else if (long.length === 0) console.log(`ok   every *.js, *.mjs at most ${MAX_LINES} lines`);
else {
  failed++;
  console.log(`FAIL JS files over ${MAX_LINES} lines (split by concern):\n${long.map(([f, n]) => `  ${f}: ${n}`).join('\n')}`);
}
run('tsc --strict --checkJs pkg-template/', join(root, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json', '--pretty', 'false'], stage);
// The explorer (www/), strict: its modules against the DOM and the package
// sources' .d.ts files (www/tsconfig.json), its service worker against the
// service worker globals (www/tsconfig.sw.json).
for (const config of ['tsconfig.json', 'tsconfig.sw.json']) {
  run(`tsc --strict www/${config}`, join(root, 'node_modules/.bin/tsc'), ['-p', join('www', config), '--pretty', 'false'], root);
}
run('eslint', join(root, 'node_modules/.bin/eslint'), ['--max-warnings', '0', '.'], root);
process.exit(failed ? 1 : 0);
