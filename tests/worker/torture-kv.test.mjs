// The torture pattern of tests/js/torture.test.mjs inside workerd: many
// concurrent requests of one Worker isolate write to one index in Workers
// KV through `Memdex#update` (commits serialized by the in-isolate writer
// lock, the stand-in for the Durable Object; a stale index reloads first),
// while other requests open the index continuously.
// Afterwards every acknowledged document is present and no reader saw an
// error. Bounded (TORTURE_SECONDS, default 8).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useTestWorker } from './support/helpers.mjs';

const SECONDS = Number(process.env.TORTURE_SECONDS ?? 8);

const WORKER = /* js */ `
import { Memdex } from '../../pkg/workerd.js';
import { kvStorage } from '../../pkg/storage/kv.js';

async function write(env, tag) {
  const index = await Memdex.open({ storage: kvStorage(env.KV), autoCommit: false });
  const docs = [0, 1].map((i) => ({ id: tag + '-' + i, text: 'torture kv ' + tag }));
  let runs = 0;
  // update() holds the in-isolate writer lock, reloads a stale index and
  // retries on CONFLICT: concurrent requests never lose a write.
  await index.update((ix) => {
    runs++;
    for (const d of docs) ix.add(d);
    if (Math.random() < 0.05) ix.compact();
  });
  index.free();
  return { acked: docs.map((d) => d.id), reruns: runs - 1 };
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    try {
      if (url.pathname === '/write') return Response.json(await write(env, url.searchParams.get('tag')));
      const index = await Memdex.open({ storage: kvStorage(env.KV), autoCommit: false });
      try {
        if (url.pathname === '/read') return Response.json({ size: index.size });
        const ids = await request.json();
        return Response.json({ missing: ids.filter((id) => index.get(id) === undefined) });
      } finally {
        index.free();
      }
    } catch (err) {
      return Response.json({ code: err?.code, error: String(err?.message ?? err) }, { status: 500 });
    }
  },
};
`;

const worker = useTestWorker(WORKER, 'torture-kv-worker');

test(`${SECONDS} s of concurrent writers and readers on one Workers KV index lose nothing`, async () => {
  const stats = { commits: 0, reruns: 0, opens: 0, acked: [], errors: [] };
  const end = Date.now() + SECONDS * 1000;
  let n = 0;
  const writer = async () => {
    while (Date.now() < end) {
      const res = await fetch(worker.url(`/write?tag=w${n++}`));
      const body = await res.json();
      if (res.status !== 200) stats.errors.push(body);
      else {
        stats.commits++;
        stats.reruns += body.reruns;
        stats.acked.push(...body.acked);
      }
    }
  };
  const reader = async () => {
    while (Date.now() < end) {
      const res = await fetch(worker.url('/read'));
      const body = await res.json();
      if (res.status !== 200) stats.errors.push(body);
      else stats.opens++;
    }
  };
  await Promise.all([writer(), writer(), writer(), writer(), reader(), reader()]);
  const { acked, ...counts } = stats;
  console.log(`torture-kv: ${JSON.stringify({ ...counts, acked: acked.length })}`);
  assert.deepEqual(stats.errors, []);
  assert.ok(stats.commits > 10 && stats.opens > 10, JSON.stringify(counts));
  const res = await fetch(worker.url('/check'), { method: 'POST', body: JSON.stringify(acked) });
  const { missing } = await res.json();
  assert.deepEqual(missing, [], `${missing.length} of ${acked.length} acknowledged documents are missing`);
});
