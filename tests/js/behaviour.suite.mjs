// The behaviour suite of the memdex JS API, written once and run
// - in Node (tests/js/behaviour.test.mjs) with memory and filesystem storage,
// - in headless Chromium (tests/e2e/behaviour.test.mjs) with memory and real
//   IndexedDB storage.
// It only uses `assert.equal / deepEqual / ok / match` so the browser runner
// can provide a tiny assert of its own.
//
// defineSuite({ Memdex, MemdexError, makeStorage, test, assert, label })
// - makeStorage(): a fresh, empty storage adapter { get, put, delete, list }.
// - test(name, fn): registers an async test.
//
// The cases live by area under behaviour/ and register in this order.
import { suiteContext } from './behaviour/common.mjs';
import { defineSearch } from './behaviour/search.mjs';
import { defineErrors } from './behaviour/errors.mjs';
import { definePersistence } from './behaviour/persistence.mjs';
import { defineDocuments } from './behaviour/documents.mjs';

export { MEMORIES } from './behaviour/common.mjs';

export function defineSuite(options) {
  const s = suiteContext(options);
  for (const define of [defineSearch, defineErrors, definePersistence, defineDocuments]) define(s);
}
