// @ts-check
// Fault injection for the test suites, and nothing else: every entry is a
// no-op unless the binding MEMDEX_TEST_HOOKS is "1", which only the tests'
// Miniflare options set (wrangler.toml and .dev.vars never do).
//
// - A request with `x-memdex-test-hook: exhaust-memory` (or the writer's
//   testHook('exhaust-memory')) leaves the isolate's engine no memory, so
//   its next allocation traps (a WebAssembly.RuntimeError, as a real
//   out-of-memory or a huge highlight tag would).
// - The writer's testHook('fail:<step>') makes the next commit step of
//   that kind fail: `blob` (a segment put to KV), `marker` (the pending
//   marker), `manifest` (the swap, before it stores) or `manifest-after`
//   (the swap stored, then the call fails: an outcome the writer cannot
//   see, as a dropped connection would leave it).
import { engineExports } from './wasm-memory.js';

/** @typedef {ReturnType<typeof import('./writer-storage.js').writerStorage>} WriterStorage */

const STEPS = ['blob', 'marker', 'manifest', 'manifest-after'];

/** The isolate side: a header asks for the hook. @param {Request} request */
export function testHook(request) {
  if (request.headers.get('x-memdex-test-hook') === 'exhaust-memory') exhaustWasmMemory();
}

/**
 * The writer's hook (NamespaceWriter#testHook): `exhaust-memory`, or
 * `fail:<step>` (added to `failing`). Refused, doing nothing, when `on` is
 * false.
 *
 * @param {boolean} on  MEMDEX_TEST_HOOKS is "1"
 * @param {string} action
 * @param {Set<string>} failing
 */
export function writerHook(on, action, failing) {
  if (!on) return { ok: false, message: 'test hooks are off (MEMDEX_TEST_HOOKS)' };
  if (action === 'exhaust-memory') exhaustWasmMemory();
  else if (action.startsWith('fail:') && STEPS.includes(action.slice(5))) failing.add(action.slice(5));
  else return { ok: false, message: `unknown test hook "${action}"` };
  return { ok: true, message: action };
}

/**
 * Grows the engine's wasm memory as far as it grows, then takes every free
 * block of its allocator (largest first), so the next allocation fails and
 * the engine aborts. The allocator's failures trap here too; they are
 * caught (they leave the allocator consistent: it returned null first).
 */
export function exhaustWasmMemory() {
  const wasm = engineExports();
  if (!wasm) return; // no engine loaded in this isolate: nothing to exhaust
  for (let pages = 1 << 16; pages >= 1; pages >>= 1) {
    try {
      for (;;) wasm.memory.grow(pages);
    } catch {
      // this step no longer fits; try a smaller one
    }
  }
  for (let size = 1 << 26; size >= 8; size >>= 1) {
    try {
      for (;;) wasm.__wbindgen_malloc(size, 8);
    } catch {
      // no free block of this size left
    }
  }
}

/**
 * `storage` with the commit steps in `failing` (a set the writer fills
 * through testHook) failing once each.
 *
 * @param {WriterStorage} storage
 * @param {Set<string>} failing
 * @returns {WriterStorage}
 */
export function faultyStorage(storage, failing) {
  const fail = (/** @type {string} */ step, /** @type {string} */ key) => {
    if (!failing.delete(step)) return;
    throw Object.assign(new Error(`test hook: ${step} step failed at "${key}"`), { code: 'STORAGE', reason: 'IO' });
  };
  return {
    ...storage,
    async put(key, value) {
      if (!key.endsWith('/manifest')) fail(key.includes('/pending/') ? 'marker' : 'blob', key);
      return storage.put(key, value);
    },
    async swap(key, expected, value) {
      fail('manifest', key);
      const stored = await storage.swap(key, expected, value);
      if (stored) fail('manifest-after', key);
      return stored;
    },
  };
}
