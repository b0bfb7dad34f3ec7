// Long mode of the multi-process torture test (tests/js/torture.test.mjs):
// W writer processes (commit() writers answering CONFLICT by reload ->
// re-apply -> commit, update() writers, auto-commit + close() writers) and R reader processes
// on one fs index for S seconds, a random writer SIGKILLed every 0.3-1.5 s
// and replaced. Prints processes, commits, conflicts, kills, opens, reader
// errors and acknowledged documents missing afterwards (must be 0 and 0).
//
//   node bench/torture.mjs [--seconds 120] [--writers 4] [--readers 2]
// Needs the built package (make pkg).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runTorture } from '../tests/js/torture/run.mjs';
import { Memdex } from '../pkg/node.js';

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '120' }, writers: { type: 'string', default: '4' }, readers: { type: 'string', default: '2' } },
});
const seconds = Number(values.seconds);
const writers = Array.from({ length: Number(values.writers) }, (_, i) => ['commit', 'update', 'close'][i % 3]);
const dir = mkdtempSync(join(tmpdir(), 'memdex-torture-bench-'));
try {
  const stats = await runTorture({ dir, seconds, writers, readers: Number(values.readers) });
  const index = await Memdex.open({ storage: 'fs', dir, autoCommit: false });
  const missing = stats.acked.filter((id) => index.get(id) === undefined).length;
  const { acked, readerErrors, writerErrors, ...counts } = stats;
  console.log(JSON.stringify({ date: new Date().toISOString(), seconds, ...counts, acked: acked.length, missing, readerErrors: readerErrors.length, finalSize: index.size }));
  index.free();
  if (missing > 0 || readerErrors.length > 0) process.exitCode = 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
