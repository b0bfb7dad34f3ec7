// One contract at every entrance: each wrong search option, filter and
// document below gets the same error code and the same engine message
// whether it enters through `Memdex` (Node), `Memdex.openInWorker` (the
// package's real worker.js, in a Node worker_thread), the memdex Worker's
// REST API (real workerd) or the MCP tools (real SDK client, real `memdex
// mcp` subprocess). The engine (Rust) is the one validator; the JS layers
// only pass values through, so a message is written once.
//
// A surface may add context around the engine's message (addMany's "stopped
// at document 1", a tool's "memory_search failed:"), never change it: the
// check is "same code, and the Memdex message appears whole in it".
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Memdex } from '../../pkg/node.js';
import { defineOpenInWorker } from '../../pkg/worker-client.js';
import { startWorker } from '../worker/support/helpers.mjs';
import { startServer, tempDir } from './mcp-helpers.mjs';
import { NodeWebWorker } from './support/node-web-worker.mjs';

const deep = (n) => {
  const root = {};
  let node = root;
  for (let i = 0; i < n; i++) node = node.a = {};
  return root;
};

// [name, input, expected code, a part of the expected message]. MCP (below)
// says how each case enters through the tools, or why it cannot.
const SEARCH = [
  ['unknown option', { limt: 5 }, 'USAGE', 'unknown field `limt`'],
  ['wrong option type', { limit: 'x' }, 'USAGE', 'invalid type for `limit`'],
  ['negative limit', { limit: -1 }, 'USAGE', 'invalid type for `limit`'],
  ['unknown mode', { mode: 'bogus' }, 'USAGE', 'unknown variant `bogus`'],
  ['sort of the wrong type', { sort: 'x' }, 'USAGE', 'invalid type for `sort`'],
  ['field weight of an unknown field', { fields: { nope: 2 } }, 'SCHEMA', 'field `nope`'],
  ['filter that is not an object', { filter: 5 }, 'SCHEMA', 'must be an object keyed by field name'],
  ['bad filter operator', { filter: { timestamp: { $gte: 1 } } }, 'SCHEMA', 'unknown range operator `$gte`'],
  ['bad date in a filter', { filter: { timestamp: { gte: 'yesterday' } } }, 'SCHEMA', 'range bounds must be numbers'],
  ['filter on an undeclared field', { filter: { nope: 'a' } }, 'SCHEMA', 'field `nope`: is not declared'],
  ['keyword filter of the wrong type', { filter: { kind: { $foo: 1 } } }, 'SCHEMA', 'field `kind`: filter by a string'],
  ['unknown semantic', { semantic: 'yes' }, 'USAGE', "search option `semantic` must be 'hybrid'"],
];

const DOCS = [
  ['document that is not an object', [1], 'SCHEMA', 'must be a JSON object like'],
  ['document without id', { title: 'T', text: 'a' }, 'SCHEMA', 'is missing in the document {text, title}'],
  ['id of the wrong type', { id: 5, text: 'a' }, 'SCHEMA', 'must be a non-empty string, got 5'],
  ['text field of the wrong type', { id: 'd1', text: 5 }, 'SCHEMA', 'field `text`: text fields take a string'],
  ['undeclared field', { id: 'd1', foo: 1 }, 'SCHEMA', 'field `foo`: is not declared in the schema'],
  ['bad date in a document', { id: 'd1', timestamp: 'nope' }, 'SCHEMA', 'field `timestamp`: dates are ISO-8601'],
  ['tags of the wrong type', { id: 'd1', tags: 5 }, 'SCHEMA', 'field `tags`: keyword fields take a string'],
  ['documents nested too deeply', { id: 'd1', text: 'a', meta: deep(200) }, 'LIMIT', 'nesting depth'],
];

// What JSON cannot carry (HTTP and MCP cannot express these): only the two
// JS entrances, which must agree.
const JS_ONLY_DOCS = [
  ['NaN in a document', { id: 'd1', text: 'a', timestamp: NaN }, 'SCHEMA', 'field `timestamp`: NaN is not a finite number'],
  ['invalid Date in a document', { id: 'd1', timestamp: new Date('x') }, 'SCHEMA', 'an invalid Date'],
];
const JS_ONLY_SEARCH = [['Infinity in an option', { limit: Infinity }, 'USAGE', '`limit` must be a finite number']];

// The MCP tools take named, typed arguments (each tool's inputSchema, which
// the model sees) and build the engine's options, filters and documents
// from them. A case reaches the engine through a tool when an argument
// carries the wrong value as is: [tool, arguments]. Otherwise the reason
// the tools cannot express it (the tool layer refuses a wrong argument
// shape itself, USAGE naming the argument: tested at the end).
const TOOL_SHAPE = 'typed tool arguments: the inputSchema refuses it first';
const MCP = {
  'unknown option': 'the tools have fixed argument names',
  'wrong option type': TOOL_SHAPE,
  'negative limit': TOOL_SHAPE,
  'unknown mode': TOOL_SHAPE,
  'sort of the wrong type': TOOL_SHAPE,
  'field weight of an unknown field': 'the tools search fixed fields',
  'filter that is not an object': 'filters are built from kind, tags, since and until',
  'bad filter operator': 'filters are built from kind, tags, since and until',
  'bad date in a filter': ['memory_search', { query: 'deploy', since: 'yesterday' }],
  'filter on an undeclared field': 'filters are built from kind, tags, since and until',
  'keyword filter of the wrong type': TOOL_SHAPE,
  'unknown semantic': TOOL_SHAPE,
  'document that is not an object': 'memory_store builds the document',
  'document without id': 'memory_store gives every memory an id',
  'id of the wrong type': TOOL_SHAPE,
  'text field of the wrong type': TOOL_SHAPE,
  'undeclared field': 'memory_store takes fixed fields',
  'bad date in a document': ['memory_store', { id: 'd1', text: 'a', timestamp: 'nope' }],
  'tags of the wrong type': TOOL_SHAPE,
  'documents nested too deeply': 'memory_store takes fixed, flat fields',
};

let index;
let remote;
let rest;
let worker;
let mcp;
let mcpDir;

before(async () => {
  index = await Memdex.open();
  const wasm = await readFile(new URL('../../pkg/memdex_bg.wasm', import.meta.url));
  globalThis.Worker ??= NodeWebWorker; // openInWorker checks that Web Workers exist
  const openInWorker = defineOpenInWorker(() => new NodeWebWorker());
  remote = await openInWorker({ wasm });
  worker = await startWorker();
  rest = worker.client(worker.keys.admin);
  // The namespace exists (searches of a missing one are NOT_FOUND).
  const made = await rest('PUT', '/v1/ns/contract/docs/seed', { json: { text: 'deploy on friday' } });
  assert.equal(made.status, 200, JSON.stringify(made.body));
  mcpDir = mkdtempSync(join(tmpdir(), 'memdex-contract-'));
  mcp = await startServer(mcpDir);
});

after(async () => {
  await mcp?.close();
  if (mcpDir) rmSync(mcpDir, { recursive: true, force: true });
  await remote?.close();
  await index?.close();
  await worker?.mf.dispose();
});

/** The error a call rejects or throws with. */
async function error(fn) {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  assert.fail('expected an error');
}

/** The MCP leg of a case: through its tool, or proof that it has a reason not to. */
async function viaMcp(name, code, message) {
  const how = MCP[name];
  assert.ok(how, `MCP: say how "${name}" enters through the tools, or why it cannot`);
  if (typeof how === 'string') return;
  const [tool, args] = how;
  const res = await mcp.call(tool, args);
  assert.equal(res.isError, true, `${tool} ${JSON.stringify(args)}: ${res.content[0].text}`);
  same(`MCP ${tool}`, { code: res._meta['memdex/code'], message: res.content[0].text }, code, message);
}

function same(surface, got, code, message) {
  assert.equal(got.code, code, `${surface}: code (${got.message})`);
  assert.ok(got.message.includes(message), `${surface}: message\n  got:      ${got.message}\n  expected: ${message}`);
}

for (const [name, options, code, part] of [...SEARCH, ...JS_ONLY_SEARCH]) {
  const jsOnly = JS_ONLY_SEARCH.some((c) => c[0] === name);
  test(`search: ${name} -> ${code}`, async () => {
    const local = await error(() => index.search('deploy', options));
    same('Memdex', local, code, part);
    same('openInWorker', await error(() => remote.search('deploy', options)), code, local.message);
    if (jsOnly) return;
    const res = await rest('POST', '/v1/ns/contract/search', { json: { query: 'deploy', ...options } });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    same('REST', res.body.error, code, local.message);
    // GET: each option one query parameter, its value as JSON.
    const qs = new URLSearchParams({ q: 'deploy' });
    for (const [key, value] of Object.entries(options)) qs.append(key, JSON.stringify(value));
    const get = await rest('GET', `/v1/ns/contract/search?${qs}`);
    assert.equal(get.status, 400, JSON.stringify(get.body));
    same('REST GET', get.body.error, code, local.message);
    await viaMcp(name, code, local.message);
  });
}

for (const [name, doc, code, part] of [...DOCS, ...JS_ONLY_DOCS]) {
  const jsOnly = JS_ONLY_DOCS.some((c) => c[0] === name);
  test(`document: ${name} -> ${code}`, async () => {
    const local = await error(() => index.add(doc));
    same('Memdex', local, code, part);
    same('openInWorker', await error(() => remote.add(doc)), code, local.message);
    same('Memdex.addMany', await error(() => index.addMany([doc])), code, local.message);
    same('openInWorker addMany', await error(() => remote.addMany([doc])), code, local.message);
    if (jsOnly) return;
    const res = await rest('POST', '/v1/ns/contract/docs', { json: [doc] });
    assert.equal(res.status, code === 'LIMIT' ? 413 : 400, JSON.stringify(res.body));
    same('REST', res.body.error, code, local.message);
    await viaMcp(name, code, local.message);
  });
}

test('every case that reaches the engine through an MCP tool is one of the tables', () => {
  const names = new Set([...SEARCH, ...DOCS].map((c) => c[0]));
  assert.deepEqual(Object.keys(MCP).filter((n) => !names.has(n)), []);
  assert.ok(Object.values(MCP).filter(Array.isArray).length >= 2);
});

// The MCP tools take their own arguments (validated against each tool's
// inputSchema, which the model sees) and build filters and documents from
// them; these cases reach the engine through them.
test('MCP tools: wrong arguments are USAGE errors naming the argument', async (t) => {
  const server = await startServer(tempDir(t));
  t.after(() => server.close());
  const cases = [
    ['memory_search', { query: 'x', limt: 3 }, 'USAGE', 'unknown argument "limt"'],
    ['memory_search', { query: 'x', limit: -1 }, 'USAGE', '"limit" must be between'],
    ['memory_store', { text: 'a', kind: 5 }, 'USAGE', '"kind" must be a string'],
    ['memory_store', { text: 5 }, 'USAGE', '"text" must be a string'],
    ['memory_store', { title: 'no text' }, 'USAGE', '"text" is required'],
  ];
  for (const [tool, args, code, part] of cases) {
    const res = await server.call(tool, args);
    assert.equal(res.isError, true, `${tool} ${JSON.stringify(args)}`);
    assert.equal(res._meta['memdex/code'], code);
    assert.ok(res.content[0].text.includes(part), res.content[0].text);
  }
});
