// One API at every entrance: enumerates the public members of `Memdex` (the
// class of the built package, checked against index.d.ts) and the keys of
// `SearchOptions` (index.d.ts), and checks each against the table of
// pkg-template/README.md ("One API at every entrance"): every member and
// option has a row, and each entrance's cell names what that entrance
// really has, or starts with "—" and says why it has none.
//
// The entrances are the real ones: `openInWorker` (its client class, and
// every member called through the package's worker.js in a worker thread),
// the Worker's REST API (its OpenAPI document), the MCP tools
// (`toolDefinitions`), and the Worker's `/mcp` (tools/list from the Worker
// running in workerd).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { Memdex, MemdexError } from '../../pkg/node.js';
import { RemoteMemdex, defineOpenInWorker } from '../../pkg/worker-client.js';
import { toolDefinitions } from '../../pkg/tools.js';
import { OPENAPI } from '../../worker/src/openapi.js';
import { startWorker } from '../worker/support/helpers.mjs';
import { NodeWebWorker } from './support/node-web-worker.mjs';

const read = (path) => readFile(new URL(path, import.meta.url), 'utf8');
const ENTRANCES = ['openInWorker', 'REST', 'MCP tools', 'Worker /mcp'];

/** The lines of `text` from the one starting with `start` to the first `}` at column 0. */
function block(text, start) {
  const from = text.indexOf(start);
  assert.ok(from >= 0, `index.d.ts has ${start}`);
  return text.slice(from, text.indexOf('\n}', from)).split('\n').slice(1);
}

/** Public members of the class `Memdex` declared in index.d.ts. */
function declaredMembers(dts) {
  const names = new Set();
  for (const line of block(dts, 'export class Memdex<')) {
    const m = /^ {2}(?:readonly )?([A-Za-z]\w*)[?]?[(<:]/.exec(line);
    if (m && !line.startsWith('  static ') && !line.startsWith('  private ')) names.add(m[1]);
  }
  return names;
}

/** String-keyed public members of the built class (its prototype chain). */
function classMembers(cls) {
  const names = new Set();
  for (let proto = cls.prototype; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const key of Object.getOwnPropertyNames(proto)) if (key !== 'constructor') names.add(key);
  }
  return names;
}

/** The rows of the README's entrance table: first cell -> { entrance -> cell }. */
function entranceTable(readme) {
  const from = readme.indexOf('## One API at every entrance');
  assert.ok(from >= 0, 'pkg-template/README.md has the section "One API at every entrance"');
  const lines = readme.slice(from).split('\n');
  const start = lines.findIndex((l) => l.startsWith('| `Memdex` |'));
  assert.ok(start >= 0, 'the section has the table');
  const header = lines[start].split('|').slice(1, -1).map((c) => c.trim());
  assert.deepEqual(header.slice(1).map((c) => c.replace(/`/g, '').replace(' (/v1)', '')), ENTRANCES);
  const rows = new Map();
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const cells = line.split('|').slice(1, -1).map((c) => c.trim());
    const [first, ...rest] = cells;
    assert.equal(rest.length, ENTRANCES.length, line);
    assert.ok(!rows.has(first), `one row for ${first}`);
    rows.set(first, Object.fromEntries(ENTRANCES.map((e, i) => [e, rest[i]])));
  }
  return rows;
}

const codeSpans = (cell) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
const isReason = (cell) => cell.startsWith('—') && cell.slice(1).trim().split(/\s+/).length >= 3;

let memberNames;
let optionNames;
let table;
let workerTools;
let rest;

before(async () => {
  const dts = await read('../../pkg-template/index.d.ts');
  memberNames = declaredMembers(dts);
  optionNames = block(dts, 'export interface SearchOptions<')
    .map((l) => /^ {2}(\w+)\?:/.exec(l)?.[1])
    .filter(Boolean);
  table = entranceTable(await read('../../pkg-template/README.md'));
  // The Worker's /mcp as a client with every namespace sees it.
  rest = await startWorker();
  const listed = await rest.client(rest.keys.admin)('POST', '/mcp', {
    json: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    headers: { accept: 'application/json, text/event-stream' },
  });
  assert.equal(listed.status, 200, JSON.stringify(listed.body));
  workerTools = listed.body.result.tools;
});
after(() => rest?.mf.dispose());

test('the Memdex class and index.d.ts declare the same public members', () => {
  assert.ok(memberNames.size > 20, [...memberNames].join(' '));
  assert.deepEqual([...classMembers(Memdex)].sort(), [...memberNames].sort());
  assert.ok(optionNames.length > 20, optionNames.join(' '));
});

test('every member and search option has one row in the README table, and no row is stale', () => {
  const expected = [...[...memberNames].map((n) => (isMethod(n) ? `\`${n}()\`` : `\`${n}\``)), ...optionNames.map((o) => `\`{ ${o} }\``)];
  const missing = expected.filter((row) => !table.has(row));
  assert.deepEqual(missing, [], `add these rows to "One API at every entrance" (pkg-template/README.md): ${missing.join(', ')}`);
  const stale = [...table.keys()].filter((row) => !expected.includes(row));
  assert.deepEqual(stale, [], 'rows for members or options that do not exist');
  for (const [row, cells] of table) {
    for (const [entrance, cell] of Object.entries(cells)) {
      assert.ok(cell.startsWith('—') ? isReason(cell) : codeSpans(cell).length > 0, `${row} / ${entrance}: a name, or "—" and a reason: ${cell}`);
    }
  }
});

/** Whether `name` is a method (not a getter) of the built Memdex. */
function isMethod(name) {
  for (let proto = Memdex.prototype; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    const d = Object.getOwnPropertyDescriptor(proto, name);
    if (d) return typeof d.value === 'function';
  }
  return false;
}

/** [row name, { entrance -> cell }] of the members' rows, and of the options' rows. */
const rowsOf = (kind) =>
  [...table].flatMap(([row, cells]) => {
    const option = /^`\{ (\w+) \}`$/.exec(row);
    const member = /^`(\w+)(\(\))?`$/.exec(row);
    if (kind === 'option' && option) return [[option[1], cells]];
    if (kind === 'member' && member) return [[member[1], cells]];
    return [];
  });

test('openInWorker: each member is on RemoteMemdex under its own name, and worker.js answers it', async () => {
  const remoteMembers = classMembers(RemoteMemdex);
  const names = [];
  for (const [name, cells] of rowsOf('member')) {
    const cell = cells.openInWorker;
    if (isReason(cell)) continue;
    assert.equal(codeSpans(cell)[0], name, `openInWorker keeps the name of ${name}`);
    assert.ok(remoteMembers.has(name), `RemoteMemdex has ${name}`);
    names.push(name);
  }
  for (const [option, cells] of rowsOf('option')) {
    if (!isReason(cells.openInWorker)) assert.equal(codeSpans(cells.openInWorker)[0], option, 'options cross to the worker as they are');
  }
  // Each member through the real worker: an answer, or an error about its
  // arguments, never "unknown method".
  const wasm = await readFile(new URL('../../pkg/memdex_bg.wasm', import.meta.url));
  globalThis.Worker ??= NodeWebWorker;
  const remote = await defineOpenInWorker(() => new NodeWebWorker())({ wasm, name: 'entrances' });
  const last = ['close', 'free'];
  for (const name of [...names.filter((n) => !last.includes(n)), 'free']) {
    const value = isMethod(name) ? remote[name]() : remote[name];
    const answer = await Promise.resolve(value).catch((e) => e);
    if (answer instanceof Error) {
      assert.ok(answer instanceof MemdexError, `${name}: ${answer}`);
      assert.doesNotMatch(answer.message, /unknown method/, name);
    }
  }
  assert.equal(remote.closed, true);
});

test('REST: each route and search parameter named is in the OpenAPI document', () => {
  const paths = OPENAPI.paths;
  for (const [name, cells] of rowsOf('member')) {
    const cell = cells.REST;
    if (isReason(cell)) continue;
    const routes = codeSpans(cell).filter((s) => /^(GET|POST|PUT|PATCH|DELETE) \//.test(s));
    assert.ok(routes.length > 0, `${name}: a route`);
    for (const route of routes) {
      const [method, path] = route.split(' ');
      assert.ok(paths[path]?.[method.toLowerCase()], `${name}: ${route} is in the OpenAPI document`);
    }
  }
  const body = OPENAPI.components.schemas.SearchRequest.properties;
  const query = OPENAPI.paths['/v1/ns/{ns}/search'].get.parameters.map((p) => p.name);
  for (const [option, cells] of rowsOf('option')) {
    if (isReason(cells.REST)) continue;
    const [name] = codeSpans(cells.REST);
    assert.equal(name, option, `REST names ${option} as the library does`);
    assert.ok(body[name], `POST /search body has ${name}`);
    assert.ok(query.includes(name), `GET /search has the parameter ${name}`);
  }
});

/** Checks the `memory_*` names of `column` against `tools` (tool names and their arguments). */
function checkTools(column, tools) {
  const byName = new Map(tools.map((t) => [t.name, t]));
  for (const [name, cells] of [...rowsOf('member'), ...rowsOf('option')]) {
    const cell = cells[column];
    if (isReason(cell)) continue;
    const named = codeSpans(cell).filter((s) => /^memory_\w+(\.\w+)?$/.test(s));
    assert.ok(named.length > 0, `${column} / ${name}: a tool`);
    for (const ref of named) {
      const [tool, arg] = ref.split('.');
      assert.ok(byName.has(tool), `${column} / ${name}: ${tool} is listed`);
      if (arg) assert.ok(byName.get(tool).inputSchema.properties[arg], `${column} / ${name}: ${tool} takes ${arg}`);
    }
  }
}

test('MCP tools: each tool and argument named is in toolDefinitions()', () => {
  checkTools('MCP tools', toolDefinitions());
});

test("the Worker's /mcp: each tool and argument named is in its tools/list", () => {
  checkTools('Worker /mcp', workerTools);
});
