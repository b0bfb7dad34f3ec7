// The generic section kind of BENCHMARKS.md: one result file under bench/results/tables/
// holds a table's numbers with its provenance, and renders as a "###" block. A new table is
// that JSON file plus its name in report.mjs's LAYOUT. Fields (* = required):
//   kind*: "table"           workload*: the file's name without .json
//   title*: the heading      command*: what produced the numbers   date*: "YYYY-MM-DD[ HH:MM]" (UTC)
//   what: what it measures   machine: where it ran (load, build)   raw: [paths of raw result files]
//   columns*: [name | {name, align: "right", digits: N, group: true}]
//   rows*: [[cell, ...]]     a cell is a string (verbatim Markdown), a number (formatted by its
//                            column: digits, thousands separators) or null (empty)
//   notes: [paragraph, ...]  what the numbers mean; kept short (history goes to bench/HISTORY.md)
import fs from 'node:fs';
import path from 'node:path';

const REQUIRED = ['kind', 'workload', 'title', 'command', 'date', 'columns', 'rows'];

// Reads bench/results/tables/NAME.json and checks its shape; a wrong file fails the report
// (and so the BENCHMARKS.md test) with the field to fix.
export function readTable(dir, name) {
  const file = path.join(dir, `${name}.json`);
  if (!fs.existsSync(file)) throw new Error(`report: LAYOUT names table "${name}" but ${file} does not exist`);
  return checkTable(JSON.parse(fs.readFileSync(file, 'utf8')), file, name);
}

// For a benchmark script: writes DIR/<table.workload>.json with `kind` set and dated now (UTC)
// unless `date` is given, after the checks readTable makes. Then `node bench/js/report.mjs`.
export function writeTable(dir, table) {
  const date = table.date ?? new Date().toISOString().slice(0, 16).replace('T', ' ');
  const t = { kind: 'table', ...table, date };
  const file = path.join(dir, `${t.workload}.json`);
  checkTable(t, file, t.workload);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(t, null, 2)}\n`);
  return file;
}

function checkTable(t, file, name) {
  for (const k of REQUIRED) if (t[k] == null) throw new Error(`report: ${file} lacks "${k}"`);
  if (t.kind !== 'table') throw new Error(`report: ${file} has kind "${t.kind}", expected "table"`);
  if (t.workload !== name) throw new Error(`report: ${file} has workload "${t.workload}", expected "${name}"`);
  if (!/^\d{4}-\d{2}-\d{2}( \d{2}:\d{2})?$/.test(t.date)) throw new Error(`report: ${file}: date "${t.date}" is not "YYYY-MM-DD[ HH:MM]"`);
  t.rows.forEach((r, i) => {
    if (r.length !== t.columns.length) throw new Error(`report: ${file}: row ${i} has ${r.length} cells for ${t.columns.length} columns`);
  });
  return t;
}

const column = (c) => (typeof c === 'string' ? { name: c } : c);

function cell(x, c) {
  if (x == null) return '';
  if (typeof x !== 'number') return String(x);
  const s = c.digits != null ? x.toFixed(c.digits) : String(x);
  if (!c.group) return s;
  const [int, frac] = s.split('.');
  return int.replace(/\B(?=(\d{3})+(?!\d))/g, ',') + (frac ? `.${frac}` : '');
}

export function renderTable(t) {
  const cols = t.columns.map(column);
  const when = `${t.date}${t.date.length > 10 ? ' UTC' : ''}`;
  const raw = t.raw?.length ? ` — raw: ${t.raw.map((f) => `\`${f}\``).join(', ')}` : '';
  let s = `### ${t.title}\n\n`;
  if (t.what) s += `${t.what}\n\n`;
  s += `Command: \`${t.command}\` — run ${when}${t.machine ? ` — ${t.machine}` : ''}${raw}\n\n`;
  s += `| ${cols.map((c) => c.name).join(' | ')} |\n`;
  s += `|${cols.map((c) => (c.align === 'right' ? '---:' : '---')).join('|')}|\n`;
  for (const r of t.rows) s += `| ${r.map((x, i) => cell(x, cols[i])).join(' | ')} |\n`;
  for (const n of t.notes || []) s += `\n${n}\n`;
  return s;
}
