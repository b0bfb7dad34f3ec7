// Runs the shared behaviour suite (behaviour.suite.mjs) in Node against the
// built package, once with memory storage and once with filesystem storage.
// The browser half (memory + IndexedDB in Chromium) is tests/e2e/behaviour.test.mjs.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Memdex, MemdexError } from '../../pkg/node.js';
import { memoryStorage } from '../../pkg/storage/memory.js';
import { fsStorage } from '../../pkg/storage/fs.js';
import { defineSuite } from './behaviour.suite.mjs';

const root = mkdtempSync(join(tmpdir(), 'memdex-behaviour-'));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

defineSuite({ Memdex, MemdexError, test, assert, label: 'memory', makeStorage: () => memoryStorage() });
defineSuite({ Memdex, MemdexError, test, assert, label: 'fs', makeStorage: () => fsStorage(join(root, `s${n++}`)) });

test('fs: storage by name with `dir`, reopened by a fresh open()', async () => {
  const dir = join(root, 'named');
  const a = await Memdex.open({ name: 'mem', storage: 'fs', dir });
  a.add({ id: 'x', title: 'persisted on disk', text: 'kept across processes' });
  await a.close(); // auto-commit is on for fs: close commits
  const b = await Memdex.open({ name: 'mem', storage: 'fs', dir });
  assert.equal(b.search('disk').hits[0].id, 'x');
  await b.close();
  await assert.rejects(Memdex.open({ storage: 'fs' }), (e) => e instanceof MemdexError && e.code === 'USAGE');
});
