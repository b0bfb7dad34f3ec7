// The error table (pkg-template/errors.js) is the one source of error codes:
// these tests fail when the engine (src/error.rs), the package's types
// (index.d.ts MemdexErrorCode), the codes thrown in the JS sources, the
// Worker's HTTP statuses or docs/ERRORS.md drift from it.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import test from 'node:test';
import { ERRORS, statusOf } from '../../pkg-template/errors.js';
import { errorsDoc } from '../../scripts/gen-errors.mjs';
import { errorBody } from '../../worker/src/errors.js';

const read = (path) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const codes = (from) => Object.keys(ERRORS).filter((c) => from.includes(ERRORS[c].from)).sort();

test('the engine codes are exactly the codes of Error::code in src/error.rs', () => {
  const src = read('src/error.rs');
  const body = src.slice(src.indexOf('pub fn code(&self)'), src.indexOf('pub(crate) fn schema'));
  const rust = [...body.matchAll(/=> "([A-Z_]+)"/g)].map((m) => m[1]).sort();
  assert.ok(rust.length >= 9, 'found the match arms of Error::code');
  assert.deepEqual(rust, codes(['engine']));
});

test('index.d.ts MemdexErrorCode lists the engine, package and HTTP codes', () => {
  const dts = read('pkg-template/index.d.ts');
  const rest = dts.slice(dts.indexOf('export type MemdexErrorCode =')).replace(/\/\*\*[\s\S]*?\*\//g, '');
  const union = rest.slice(0, rest.indexOf(';'));
  const listed = [...union.matchAll(/'([A-Z_]+)'/g)].map((m) => m[1]).sort();
  assert.deepEqual(listed, codes(['engine', 'package', 'http']));
});

test('every code literal thrown or returned by the JS sources is in the table', () => {
  const files = [
    ...readdirSync(new URL('../../pkg-template/', import.meta.url)).filter((f) => f.endsWith('.js')).map((f) => `pkg-template/${f}`),
    ...readdirSync(new URL('../../worker/src/', import.meta.url)).filter((f) => f.endsWith('.js')).map((f) => `worker/src/${f}`),
    ...readdirSync(new URL('../../worker/src/handlers/', import.meta.url)).map((f) => `worker/src/handlers/${f}`),
  ];
  let seen = 0;
  for (const file of files) {
    for (const m of read(file).matchAll(/\b(?:MemdexError|ApiError|failure|fail)\(\s*'([A-Z_]+)'/g)) {
      seen++;
      assert.ok(m[1] in ERRORS, `${file} uses code ${m[1]}, which is not in pkg-template/errors.js`);
    }
  }
  assert.ok(seen > 30, `found the code literals (${seen})`);
});

test('the Worker answers each code with the status of the table', () => {
  for (const [code, e] of Object.entries(ERRORS)) {
    const { status, body } = errorBody(Object.assign(new Error('m'), { code }));
    assert.equal(status, e.status, code);
    assert.equal(status, statusOf(code));
    assert.equal(body.error.code, code);
  }
  assert.equal(statusOf('NO_SUCH_CODE'), 500);
});

test('the OpenAPI description lists the HTTP codes of the table', async () => {
  const { OPENAPI } = await import('../../worker/src/openapi.js');
  const text = JSON.stringify(OPENAPI);
  for (const code of codes(['engine', 'package', 'http'])) assert.ok(text.includes(`"${code}"`), code);
  assert.ok(!text.includes('"EXISTS"'), 'tool-only codes are not HTTP codes');
});

test('docs/ERRORS.md is generated from the table (node scripts/gen-errors.mjs)', () => {
  assert.equal(read('docs/ERRORS.md'), errorsDoc());
  for (const code of Object.keys(ERRORS)) assert.ok(read('docs/ERRORS.md').includes(`\`${code}\``));
});

test('every row says what the code means and what to do', () => {
  for (const [code, e] of Object.entries(ERRORS)) {
    assert.match(code, /^[A-Z_]+$/);
    assert.ok(Number.isInteger(e.status) && e.status >= 400 && e.status < 600, code);
    assert.ok(e.meaning.length > 10 && e.action.length > 10, code);
  }
});
