// The guide documents keep their shape: ARCHITECTURE.md at most 300 lines,
// with both walk-throughs, and no link leaving the repository.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const read = (path) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

test('ARCHITECTURE.md is a guide of at most 300 lines with both walk-throughs', () => {
  const text = read('ARCHITECTURE.md');
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  assert.ok(lines <= 300, `ARCHITECTURE.md has ${lines} lines; keep it at most 300 (details belong in docs/ or the module docs)`);
  assert.match(text, /^## The life of a write$/m);
  assert.match(text, /^## The life of a search$/m);
});

test('ARCHITECTURE.md links only inside the repository', () => {
  const links = [...read('ARCHITECTURE.md').matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]);
  const outside = links.filter((l) => /^[a-z]+:/i.test(l) || l.startsWith('../'));
  assert.deepEqual(outside, [], 'links outside the repository');
});
