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
    const cell = t.rows[0].findIndex((c) => typeof c === 'number');
    t.rows[0][cell] += 1;
    fs.writeFileSync(f, JSON.stringify(t, null, 2));
    const r = check(dir);
    assert.equal(r.status, 1);
    assert.match(r.stderr, new RegExp(`BENCHMARKS\\.md differs .*${t.rows[0][cell].toLocaleString('en-US')}`));
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

test('a new table is one writeTable call: dated, checked, rendered with its command and date', async () => {
  const { writeTable, readTable, renderTable } = await import('../../bench/js/report-table.mjs');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'memdex-bench-table-'));
  try {
    const table = {
      workload: 'exact-total',
      title: 'Exact totals',
      command: 'cargo run --release --example total_cost',
      columns: ['documents', { name: 'p50 ms before', align: 'right', digits: 3 }, { name: 'hits', align: 'right', group: true }],
      rows: [['100k', 0.0584, 100000], ['1M', 0.298, null]],
    };
    writeTable(dir, table);
    const t = readTable(dir, 'exact-total');
    assert.match(t.date, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);
    const md = renderTable(t);
    assert.match(md, /^### Exact totals\n/);
    assert.match(md, new RegExp(`Command: \`cargo run --release --example total_cost\` — run ${t.date} UTC`));
    assert.match(md, /\| documents \| p50 ms before \| hits \|\n\|---\|---:\|---:\|\n\| 100k \| 0\.058 \| 100,000 \|\n\| 1M \| 0\.298 \| {2}\|/);
    assert.throws(() => writeTable(dir, { ...table, command: undefined }), /lacks "command"/);
    assert.throws(() => writeTable(dir, { ...table, rows: [['100k', 1]] }), /row 0 has 2 cells for 3 columns/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
