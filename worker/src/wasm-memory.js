// @ts-check
// The engine's wasm instance in this isolate: its linear memory (it grows
// and never shrinks: its size is the high-water mark of the engine's heap)
// for the diagnostics of GET /v1/namespaces and the writer's info(), and
// its exports for the test hooks.
import { initSync } from 'memdex/wasm';

/** The engine's exports once the package loaded it in this isolate, else null. */
export function engineExports() {
  try {
    // Once loaded, initSync returns the instance's exports without loading
    // again (its argument is then unused); before, it throws.
    return initSync(/** @type {WebAssembly.Module} */ (/** @type {unknown} */ (undefined)));
  } catch {
    return null;
  }
}

export const wasmMemoryBytes = () => engineExports()?.memory.buffer.byteLength ?? 0;
