// @ts-check
// The engine's wasm linear memory in this isolate (it grows and never
// shrinks: its size is the high-water mark of the engine's heap), for the
// diagnostics of GET /v1/namespaces and the writer's info().
import { initSync } from '../../pkg/memdex.js';

export function wasmMemoryBytes() {
  try {
    // initSync() returns the instance's exports once the package loaded it.
    return /** @type {any} */ (initSync)().memory.buffer.byteLength;
  } catch {
    return 0; // not loaded yet in this isolate
  }
}
