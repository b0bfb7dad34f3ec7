// Minifies the JavaScript shipped in a built package directory, in place, and
// writes a linked source map next to each file.
//
// Usage: node scripts/minify-pkg.mjs <pkg-dir>
//
// Why: a page without a bundler loads these files as they are, so their
// comments are bytes on the wire (about a third of the JS, gzipped). Only
// whitespace and syntax are minified: identifiers keep their names, so stack
// traces stay readable, and each `.js.map` embeds the commented original
// (`sourcesContent`) for devtools and bundlers. The public API is documented
// in the `.d.ts` files, which are not touched.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { transformSync } from 'esbuild';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node scripts/minify-pkg.mjs <pkg-dir>');
  process.exit(2);
}

/** How many `new URL('literal', import.meta.url)` a source holds on one line each. @param {string} code */
const urlPatterns = (code) => (code.match(/new URL\(\s*(['"`])[^'"`\n]*\1\s*,\s*import\.meta\.url\s*\)/g) ?? []).length;

const files = readdirSync(dir, { recursive: true })
  .map(String)
  .filter((f) => f.endsWith('.js'))
  .sort();

for (const file of files) {
  const path = join(dir, file);
  const original = readFileSync(path, 'utf8');
  // Idempotent: a file already carrying our map link was minified by an
  // earlier run over the same directory.
  if (original.includes(`//# sourceMappingURL=${basename(file)}.map`)) continue;
  const minify = (lineLimit) =>
    transformSync(original, {
      loader: 'js',
      minifyWhitespace: true,
      minifySyntax: true,
      legalComments: 'none',
      lineLimit,
      sourcemap: 'external',
      sourcesContent: true,
      // Shown by devtools as the original's path; it resolves to nothing on
      // disk, the content comes from `sourcesContent`.
      sourcefile: `memdex-source/${relative(dir, path).split('\\').join('/')}`,
    });
  // Short lines: Node prints the source line of an uncaught error's throw
  // site, and one 20 KB line is a kilobyte of noise; lines of at most ~120
  // characters keep that readable (+4% gzipped, measured on core.js). A
  // file whose `new URL('./file', import.meta.url)` a line break would cut
  // keeps long lines: bundlers find that pattern as written.
  let { code, map } = minify(120);
  if (urlPatterns(code) < urlPatterns(original)) ({ code, map } = minify(0));
  writeFileSync(path, `${code}//# sourceMappingURL=${basename(file)}.map\n`);
  writeFileSync(`${path}.map`, map);
}
console.log(`minify-pkg: ${files.length} JS files in ${dir}`);
