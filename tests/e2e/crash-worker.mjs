// Test-only module worker for tests/e2e/crash.test.mjs: the package's own
// worker (pkg/worker.js, unchanged) plus one message the test sends
// directly, `{ exhaust: true }`, which grows the engine's wasm memory to its
// maximum so that the engine's next large allocation traps. worker.js
// answers that message too (with an error under no pending id: ignored).
import '/pkg/worker.js';
import { initSync } from '/pkg/memdex.js';

self.addEventListener('message', ({ data }) => {
  if (!data?.exhaust) return;
  const memory = initSync().memory; // the loaded instance's exports
  for (let n = 65536; n >= 1; n = Math.floor(n / 2)) {
    try {
      memory.grow(n);
      n *= 2;
    } catch {
      // too many pages: try half
    }
  }
  self.postMessage({ exhausted: memory.buffer.byteLength });
});
