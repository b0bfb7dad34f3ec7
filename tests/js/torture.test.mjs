// Multi-process torture of the fs commit protocol: writer processes commit
// to one index (through commit() with the manual CONFLICT recovery, through
// update(), and through auto-commit + close()),
// reader processes open it continuously, and writers are SIGKILLed at random
// and restarted. Afterwards every acknowledged document must be present, no
// reader may have seen CORRUPT, and the index must open. Bounded for
// `make test` (TORTURE_SECONDS, default 12); bench/torture.mjs runs it longer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTorture } from './torture/run.mjs';
import { Memdex } from '../../pkg/node.js';

const SECONDS = Number(process.env.TORTURE_SECONDS ?? 12);

test(`${SECONDS} s of 4 writer processes with random SIGKILLs and 1 reader on one fs index lose nothing`, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'memdex-torture-'));
  try {
    const stats = await runTorture({ dir, seconds: SECONDS, writers: ['commit', 'update', 'close', 'update'], readers: 1 });
    const { acked, ...counts } = stats;
    console.log(`torture: ${JSON.stringify({ ...counts, acked: acked.length })}`);
    assert.deepEqual(stats.readerErrors, [], 'readers saw errors (a false CORRUPT?)');
    assert.ok(stats.commits > 20, `only ${stats.commits} commits`);
    assert.ok(stats.kills >= 2, `only ${stats.kills} kills`);
    assert.ok(stats.opens > 20, `only ${stats.opens} opens`);
    const index = await Memdex.open({ storage: 'fs', dir, autoCommit: false });
    const missing = stats.acked.filter((id) => index.get(id) === undefined);
    assert.deepEqual(missing, [], `${missing.length} of ${stats.acked.length} acknowledged documents are missing`);
    index.free();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
