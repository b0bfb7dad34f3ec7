// Post-processes wasm-bindgen's `--target web` glue (DIR/memdex.js, run by
// scripts/build-pkg) so that core.js can throw a trapped wasm instance away
// and instantiate a fresh one. A trap (out of bounds,
// `unreachable` from a Rust abort, out of memory) leaves the instance's
// RefCell borrow flags and allocator in whatever state the trap found them:
// every later call may fail ("recursive use of an object") or corrupt data.
//
// The glue keeps the instance and views of its memory in module variables
// and initialises once, so this appends `__memdexReset()`: it forgets the
// instance and the views and returns the compiled WebAssembly.Module, which
// the next `init({ module_or_path: module })` instantiates again.
//
// The glue's FinalizationRegistry callbacks free wasm objects (engines,
// closures) through the module-level `wasm`: after a reset, an old object
// collected later would free its pointer in the *new* instance. Each
// registry is wrapped so that a callback registered before a reset does
// nothing (the old instance's memory goes away with it).
//
// Fails loudly when the glue no longer has the names this relies on (a
// wasm-bindgen upgrade): check the generated memdex.js and adapt.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2] ?? 'pkg';
const file = join(dir, 'memdex.js');
let js = readFileSync(file, 'utf8');

const die = (what) => {
  console.error(`glue-reset: ${file}: ${what}; wasm-bindgen's glue changed, update scripts/glue-reset.mjs`);
  process.exit(1);
};

if (js.includes('__memdexReset')) die('already post-processed');
if (!/^let wasmModule, wasmInstance, wasm;$/m.test(js)) die('`let wasmModule, wasmInstance, wasm;` not found');
if (!/^let __wbg_init_promise;$/m.test(js)) die('`let __wbg_init_promise;` not found');
if (!/if \(wasm !== undefined\) return wasm;/.test(js)) die('init does not check `wasm !== undefined`');
const caches = [...js.matchAll(/^let (cached\w+Memory0) = null;$/gm)].map((m) => m[1]);
if (caches.length === 0) die('no `let cached...Memory0 = null;` memory views found');
const finalize = js.slice(js.indexOf('function __wbg_finalize_init('), js.indexOf('async function __wbg_load('));
for (const c of caches) if (!finalize.includes(`${c} = null;`)) die(`__wbg_finalize_init does not reset ${c}`);

const registries = js.split('new FinalizationRegistry(').length - 1;
if (registries === 0) die('no `new FinalizationRegistry(` found');
js = js.replaceAll('new FinalizationRegistry(', '__memdexFinalization(');

js += `
// Appended by scripts/build-pkg (scripts/glue-reset.mjs): see there.
var __memdexEpoch = 0;
function __memdexFinalization(cleanup) {
    const registry = new FinalizationRegistry((held) => { if (held.epoch === __memdexEpoch) cleanup(held.value); });
    return {
        register: (target, value, token) => registry.register(target, { epoch: __memdexEpoch, value }, token),
        unregister: (token) => registry.unregister(token),
    };
}
/** Forgets the instance (after a trap); returns the compiled module for the next init. */
export function __memdexReset() {
    const module = wasmModule;
    __memdexEpoch++;
    wasm = wasmInstance = wasmModule = __wbg_init_promise = undefined;
    ${caches.map((c) => `${c} = null;`).join('\n    ')}
    return module;
}
`;
writeFileSync(file, js);

const dts = join(dir, 'memdex.d.ts');
writeFileSync(dts, `${readFileSync(dts, 'utf8')}
/** Forgets the trapped instance; returns the compiled module (scripts/glue-reset.mjs). */
export function __memdexReset(): WebAssembly.Module | undefined;
`);
console.log(`glue-reset: ${file}: ${registries} finalization registries guarded, ${caches.length} memory views reset`);
