// Structured error data (`MemdexError.data`): the engine's error fields reach
// the caller of every entrance, and the MCP tools choose their advice from
// `code` and `data.field`, never from the message text.
//
// The first three tests build errors carrying `data` the way the wasm layer
// throws them; the last one needs a package whose engine sets `data`
// (scripts/build-pkg after the Rust change that adds it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { MemdexError, Memdex } from '../../pkg/node.js';
import { toMemdexError } from '../../pkg/realm.js';
import { defineOpenInWorker } from '../../pkg/worker-client.js';
import { handleToolCall } from '../../pkg/tools.js';
import { NodeWebWorker } from './support/node-web-worker.mjs';

/** An error as the wasm layer throws it: an Error named MemdexError with code and data. */
const engineError = (code, message, data) => Object.assign(new Error(message), { name: 'MemdexError', code, data });

test('toMemdexError keeps the engine error data; a MemdexError declares data', () => {
  const data = { field: 'timestamp', reason: 'dates are ISO-8601 strings or epoch milliseconds' };
  const err = toMemdexError(engineError('SCHEMA', 'schema error on field `timestamp`: ...', data));
  assert.ok(err instanceof MemdexError);
  assert.equal(err.code, 'SCHEMA');
  assert.deepEqual(err.data, data);
  assert.ok('data' in new MemdexError('USAGE', 'x'), 'data is a declared property');
  assert.equal(new MemdexError('USAGE', 'x').data, undefined);
});

test('openInWorker revives errors with their data', async () => {
  // The client side alone: a worker that answers every call with an error
  // carrying data, as worker.js sends engine errors.
  const listeners = {};
  const fake = {
    addEventListener: (type, fn) => (listeners[type] = fn),
    postMessage: ({ id, method }) =>
      queueMicrotask(() =>
        listeners.message({
          data:
            method === 'open'
              ? { id, result: null }
              : { id, error: { code: 'LIMIT', message: 'too long', data: { what: 'query bytes', limit: 4096, got: 5000 } } },
        }),
      ),
    terminate() {},
  };
  globalThis.Worker ??= NodeWebWorker;
  const remote = await defineOpenInWorker(() => fake)();
  const err = await remote.search('x').catch((e) => e);
  assert.ok(err instanceof MemdexError);
  assert.equal(err.code, 'LIMIT');
  assert.deepEqual(err.data, { what: 'query bytes', limit: 4096, got: 5000 });
});

test('MCP tool advice comes from code and data.field, not from the message', async () => {
  // An index whose writes and searches fail with a given engine error.
  const failing = (err) => ({
    get: async () => undefined,
    add: async () => {
      throw err;
    },
    remove: async () => false,
    search: async () => {
      throw err;
    },
    related: async () => [],
    update: async (fn) => fn(),
  });
  const text = async (err, name, args) => (await handleToolCall(failing(err), name, args)).content[0].text;
  const timestamp = toMemdexError(engineError('SCHEMA', 'bad date', { field: 'timestamp', reason: 'x' }));
  assert.match(await text(timestamp, 'memory_store', { text: 'a' }), /^SCHEMA: memory_store failed: bad date\. Give timestamp as an ISO-8601/);
  assert.match(await text(timestamp, 'memory_search', { query: 'a', since: 'x' }), /bad date\. since and until take ISO dates/);
  const tags = toMemdexError(engineError('SCHEMA', 'no tags', { field: 'tags' }));
  assert.match(await text(tags, 'memory_store', { text: 'a' }), /no tags\. This memory index was created before tags and links existed/);
  const vector = toMemdexError(engineError('SCHEMA', 'no vector field', { field: 'vector' }));
  assert.match(await text(vector, 'memory_search', { query: 'a', vector: [1, 0] }), /vector needs the memory index to have a vector field/);
  // The data itself travels in the result's _meta, as err.data does elsewhere.
  const result = await handleToolCall(failing(vector), 'memory_search', { query: 'a', vector: [1, 0] });
  assert.deepEqual(result._meta['memdex/data'], { field: 'vector' });
  // The same words without data: no advice (the message is never parsed).
  const bare = toMemdexError(engineError('SCHEMA', 'schema error on field `timestamp`: range bounds must be dates'));
  assert.equal(await text(bare, 'memory_search', { query: 'a' }), 'SCHEMA: memory_search failed: schema error on field `timestamp`: range bounds must be dates');
});

test('engine errors carry data at every JS entrance: Memdex and openInWorker agree (needs the rebuilt package)', async (t) => {
  const wasm = await readFile(new URL('../../pkg/memdex_bg.wasm', import.meta.url));
  const index = await Memdex.create();
  globalThis.Worker ??= NodeWebWorker;
  const remote = await defineOpenInWorker(() => new NodeWebWorker())({ wasm });
  t.after(() => remote.close());
  const doc = { id: 'a', text: 'x', timestamp: 'not a date' };
  const local = (() => {
    try {
      index.add(doc);
    } catch (e) {
      return e;
    }
  })();
  assert.equal(local?.code, 'SCHEMA');
  assert.equal(local.data?.field, 'timestamp', 'the engine sets data.field');
  const far = await remote.add(doc).catch((e) => e);
  assert.equal(far.code, 'SCHEMA');
  assert.deepEqual(far.data, local.data);
});
