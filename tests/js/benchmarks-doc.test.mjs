// BENCHMARKS.md is generated whole by bench/js/report.mjs from bench/results/: this suite fails
// unless the committed file (and chart) is byte for byte what the result files give, and shows
// on a copy of the tree that the check catches an edited number and an unplaced result file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const check = (dir) => spawnSync(process.execPath, [path.join(dir, 'bench/js/report.mjs'), '--check'], { encoding: 'utf8' });

// A scratch tree with the report's code, the result files and the generated outputs.
function copyTree() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'memdex-bench-doc-'));
  fs.mkdirSync(path.join(dir, 'bench/js'), { recursive: true });
  for (const f of fs.readdirSync(path.join(root, 'bench/js')).filter((f) => f.startsWith('report'))) {
    fs.copyFileSync(path.join(root, 'bench/js', f), path.join(dir, 'bench/js', f));
  }
  fs.cpSync(path.join(root, 'bench/results'), path.join(dir, 'bench/results'), { recursive: true });
  fs.copyFileSync(path.join(root, 'BENCHMARKS.md'), path.join(dir, 'BENCHMARKS.md'));
  return dir;
}

test('BENCHMARKS.md and chart.svg are exactly what `node bench/js/report.mjs` generates', () => {
  const r = check(root);
  assert.equal(r.status, 0, `report --check failed:\n${r.stderr}`);
});

test('every table in BENCHMARKS.md states the command and the date that produced it', () => {
  const md = fs.readFileSync(path.join(root, 'BENCHMARKS.md'), 'utf8');
  const blocks = md.split(/\n(?=#{2,3} )/).filter((b) => /\n\|---/.test(b));
  assert.ok(blocks.length >= 20, `only ${blocks.length} blocks with tables`);
  for (const b of blocks) {
    assert.match(b, /Command: `[^`]+` — run \d{4}-\d{2}-\d{2}/, `no command and date in:\n${b.slice(0, 200)}`);
  }
});

test('the check fails when a result file changes and BENCHMARKS.md is not regenerated', () => {
  const dir = copyTree();
  try {
    assert.equal(check(dir).status, 0, 'the copied tree starts consistent');
    const f = path.join(dir, 'bench/results/tables/wasm-size.json');
    const t = JSON.parse(fs.readFileSync(f, 'utf8'));
    t.rows[0][1] += 1;
    fs.writeFileSync(f, JSON.stringify(t, null, 2));
    const r = check(dir);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /BENCHMARKS\.md differs .*286,862/);
    // Regenerating brings them back in line.
    assert.equal(spawnSync(process.execPath, [path.join(dir, 'bench/js/report.mjs')]).status, 0);
    assert.equal(check(dir).status, 0);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the check fails on a hand edit of BENCHMARKS.md and on a result file no section places', () => {
  const dir = copyTree();
  try {
    fs.appendFileSync(path.join(dir, 'BENCHMARKS.md'), '\nA note written by hand.\n');
    assert.equal(check(dir).status, 1);
    fs.copyFileSync(path.join(root, 'BENCHMARKS.md'), path.join(dir, 'BENCHMARKS.md'));
    fs.copyFileSync(path.join(dir, 'bench/results/tables/wasm-size.json'), path.join(dir, 'bench/results/tables/orphan.json'));
    const r = check(dir);
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /orphan, which LAYOUT in bench\/js\/report\.mjs does not place/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
