// A trapped engine is thrown away (issue 27): a wasm trap leaves the one
// instance of the realm unusable, so the call that trapped answers INTERNAL
// and the next call runs on a fresh instance, with the index reloaded from
// storage. The trap is real, with no hook in the package: the test grows the
// engine's wasm memory to its maximum, so the engine's next large allocation
// fails and Rust aborts (`unreachable`). Each test file runs in its own
// process, so no other suite shares this realm.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Memdex } from '../../pkg/node.js';
import { initSync } from '../../pkg/memdex.js';
import { createMemoryServer } from '../../pkg/mcp.js';

const tempDir = (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'memdex-crash-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};
const doc = (id, text = `durable memory ${id}`) => ({ id, title: `note ${id}`, text });
const FILL = 'z '.repeat(1 << 19); // 1 MiB

/** Grows the loaded instance's memory to its maximum (4 GiB: no pages left for the allocator). */
function exhaustWasmMemory() {
  const memory = /** @type {any} */ (initSync)().memory; // initSync() returns the loaded exports
  for (let n = 65536; n >= 1; n = Math.floor(n / 2)) {
    try {
      memory.grow(n);
      n *= 2; // try the same size again
    } catch {
      // too many pages: try half
    }
  }
  assert.ok(memory.buffer.byteLength > 4e9, 'the wasm memory is at its maximum');
}

/**
 * Exhausts the wasm memory, then runs `write(i)` (each adding a 1 MiB
 * document the index keeps) until the allocator has nothing left and the
 * engine traps; returns that error.
 */
function trapWith(write) {
  exhaustWasmMemory();
  for (let i = 0; i < 5000; i++) {
    try {
      write(i);
    } catch (err) {
      return err;
    }
  }
  assert.fail('the engine never ran out of memory');
}

const isTrap = (err) => err.code === 'INTERNAL' && err.cause instanceof WebAssembly.RuntimeError;

test('a trap answers INTERNAL once; the next call runs on a fresh engine reloaded from storage, for every index of the realm', async (t) => {
  const dir = tempDir(t);
  const a = await Memdex.open({ storage: 'fs', dir, name: 'a', autoCommit: false });
  const b = await Memdex.open({ storage: 'fs', dir, name: 'b', autoCommit: false });
  a.add(doc('a1'));
  await a.commit();
  b.add(doc('b1'));
  await b.commit();
  a.add(doc('a-unsaved')); // never committed: lost with the crashed engine

  const err = trapWith((i) => a.add(doc(`fill-${i}`, FILL)));
  assert.ok(isTrap(err), String(err));

  // The next call on the index that trapped: a write that needs memory
  // (the old, exhausted instance would trap again) and reads of durable data.
  await a.update((ix) => ix.add(doc('a2', 'y '.repeat(1 << 20))));
  assert.equal(a.get('a1')?.id, 'a1');
  assert.equal(a.get('a2')?.id, 'a2');
  assert.equal(a.get('a-unsaved'), undefined, 'uncommitted writes are lost with the engine');
  assert.ok(/** @type {any} */ (initSync)().memory.buffer.byteLength < 1 << 30, 'a fresh instance with a fresh memory');

  // Another index of the realm restarts too (its async calls wait for it).
  await b.ready();
  assert.equal(b.get('b1')?.id, 'b1');
  assert.equal(b.search('durable').hits.length, 1);
  b.add(doc('b2'));
  await b.commit();

  // Everything acknowledged is durable; the index opens normally.
  await a.close();
  await b.close();
  const again = await Memdex.open({ storage: 'fs', dir, name: 'a', autoCommit: false });
  assert.equal(again.size, 2);
  assert.equal(again.get('a2')?.id, 'a2');
  again.free();
});

test('Memdex.open() while the engine is dead waits for the restart; reads retried after ready() answer', async (t) => {
  const dir = tempDir(t);
  const index = await Memdex.open({ storage: 'fs', dir, autoCommit: false });
  index.addAll([doc('s1'), doc('s2')]);
  await index.commit();
  const err = trapWith((i) => index.addAll([doc(`s3-${i}`), doc(`fill-${i}`, FILL)]));
  assert.ok(isTrap(err), String(err));
  const other = await Memdex.open({ storage: 'fs', dir, autoCommit: false });
  assert.equal(other.size, 2);
  await index.ready();
  assert.equal(index.search('durable').hits.length, 2);
  assert.equal(index.get('s3-0'), undefined, 'the batches before the trap were never committed');
  other.free();
  await index.close();
});

test('MCP tools: a call that traps answers INTERNAL; the next calls answer from storage', async (t) => {
  const dir = tempDir(t);
  const index = await Memdex.open({ storage: 'fs', dir, autoCommit: false });
  const server = createMemoryServer(index, { commit: true });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'memdex-crash-test', version: '0.1.0' });
  await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
  const call = (name, args) => client.callTool({ name, arguments: args });
  t.after(() => client.close());

  assert.equal((await call('memory_store', { id: 'kept', text: 'a durable decision' })).isError, false);
  exhaustWasmMemory();
  // Tool texts are at most 100,000 characters: 50 of them (distinct words)
  // fill the little the allocator has left.
  const memories = Array.from({ length: 50 }, (_, i) => ({
    id: `huge-${i}`,
    text: Array.from({ length: 12500 }, (_, j) => `w${i}x${j}`).join(' ').slice(0, 100000),
  }));
  const crashed = await call('memory_store', { memories });
  assert.equal(crashed.isError, true);
  assert.equal(crashed._meta?.['memdex/code'], 'INTERNAL');

  const got = await call('memory_get', { id: 'kept' });
  assert.equal(got.isError, false, JSON.stringify(got.content));
  assert.equal((await call('memory_get', { id: 'huge-0' })).isError, true, 'the crashed call stored nothing');
  assert.equal((await call('memory_store', { id: 'after', text: 'stored after the crash' })).isError, false);
  const found = await call('memory_search', { query: 'durable decision' });
  assert.deepEqual(found.structuredContent.hits.map((h) => h.id), ['kept']);
  await index.close();
  const reopened = await Memdex.open({ storage: 'fs', dir, autoCommit: false });
  assert.equal(reopened.size, 2);
  reopened.free();
});
