// The JavaScript code blocks of the READMEs, for the tests that run them
// (tests/js/readme.test.mjs in Node, tests/e2e/readme.test.mjs in Chromium).
//
// Every fenced block whose info string starts with `js` is picked up, so a
// snippet added to a README is run without registering it anywhere. The rest
// of the info string says where it runs:
//
//   ```js            runs as written in Node: its own temp directory, the
//                    built package importable as `memdex` (pkg/)
//   ```js browser    runs as written in Chromium (a module script on a page
//                    where `memdex` maps to pkg/index.js); Node only checks
//                    its syntax
//   ```js fragment   not runnable on its own (a part of a larger program);
//                    only its syntax is checked, wrapped in an async function
//
//   ```ts            type-checked with `tsc --strict` against the package's
//                    typings (tests/js/types.test.mjs); `// @ts-expect-error`
//                    lines show what does not compile
//
// A ```text output block right after a runnable block holds what the block
// prints (console.log), compared line by line: the READMEs show real output.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** The READMEs whose snippets must run. */
export const READMES = ['README.md', 'pkg-template/README.md'];

/**
 * Every js and ts block: `{ file, line, mode: 'node' | 'browser' | 'fragment' | 'ts', code, output? }`
 * (`line`: 1-based line of the opening fence; `output`: the text of a
 * following ```text output block).
 */
export function snippets() {
  const out = [];
  for (const file of READMES) {
    const lines = readFileSync(root + file, 'utf8').split('\n');
    let open = null;
    for (let i = 0; i < lines.length; i++) {
      const fence = /^```(.*)$/.exec(lines[i]);
      if (!fence) continue;
      if (open === null) {
        open = { info: fence[1].trim(), start: i, body: [] };
        for (i++; i < lines.length && !/^```\s*$/.test(lines[i]); i++) open.body.push(lines[i]);
        const [lang, ...rest] = open.info.split(/\s+/);
        const code = open.body.join('\n');
        if (lang === 'js') {
          const flag = rest[0];
          if (flag !== undefined && flag !== 'browser' && flag !== 'fragment') {
            throw new Error(`${file}:${open.start + 1}: unknown js block flag "${flag}" (use browser or fragment)`);
          }
          out.push({ file, line: open.start + 1, mode: flag ?? 'node', code });
        } else if (lang === 'ts') {
          out.push({ file, line: open.start + 1, mode: 'ts', code });
        } else if (lang === 'text' && rest[0] === 'output') {
          const prev = out[out.length - 1];
          if (!prev || prev.file !== file || prev.mode !== 'node') {
            throw new Error(`${file}:${open.start + 1}: a text output block must follow a runnable js block`);
          }
          prev.output = code;
        }
        open = null;
      }
    }
  }
  return out;
}
