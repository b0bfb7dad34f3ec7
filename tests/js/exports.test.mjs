// Every value a package entry point's .d.ts declares is exported by its
// module at run time (a declaration file shadows its module for tsc, so a
// lost export would type-check and fail only when called).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';

const PKG = new URL('../../pkg/', import.meta.url);
// Entry points whose module and declarations share a name (node.js,
// workerd.js and the lexical build's entries are declared by index.d.ts).
const ENTRIES = ['index', 'node', 'workerd', 'lexical', 'lexical-node', 'lexical-workerd', 'tools', 'mcp', 'errors', 'storage/memory', 'storage/indexeddb', 'storage/kv', 'storage/fs', 'storage/locks'];

/** Names of the values (functions, constants, classes) `dts` exports, re-exports included. */
async function declaredValues(dts) {
  const text = await readFile(new URL(dts, PKG), 'utf8');
  const names = new Set([...text.matchAll(/^export (?:declare )?(?:function|const|class) (\w+)/gm)].map((m) => m[1]));
  // Re-exports list types too: values are the lowerCamelCase names.
  for (const m of text.matchAll(/^export \{([^}]+)\} from '([^']+)';/gm)) {
    for (const n of m[1].split(',').map((s) => s.trim())) if (/^[a-z]/.test(n)) names.add(n);
  }
  return names;
}

for (const entry of ENTRIES) {
  test(`${entry}.js exports every value of its declarations`, async () => {
    const dts = /^(node|workerd|lexical.*)$/.test(entry) ? 'index.d.ts' : `${entry}.d.ts`;
    const declared = await declaredValues(dts);
    assert.ok(declared.size > 0, dts);
    const module = await import(new URL(`${entry}.js`, PKG)).catch((err) => {
      // Modules of another runtime (workerd imports .wasm; browsers' IndexedDB is lazy).
      if (/\.wasm|Unknown file extension/.test(String(err))) return null;
      throw err;
    });
    if (module === null) return assert.match(entry, /workerd$/, 'only the workerd entries need their runtime to load');
    const missing = [...declared].filter((n) => !(n in module));
    assert.deepEqual(missing, [], `${entry}.js lacks exports its .d.ts declares`);
  });
}
