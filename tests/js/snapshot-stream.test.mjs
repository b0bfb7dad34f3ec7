// exportStream() / import(parts): a snapshot written and read part by part,
// the same bytes as export() (kind 4, docs/FORMAT.md "Snapshots").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Memdex, MemdexError } from '../../pkg/node.js';

const WORDS = ['deploy', 'friday', 'rollback', 'editor', 'dark', 'mode', 'wasm', 'segment', 'merge', 'agent', 'memory', 'rule'];

/** `n` documents of ~60 words drawn deterministically. */
function docs(n) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const words = Array.from({ length: 60 }, (_, j) => `${WORDS[(i * 7 + j * 13) % WORDS.length]}${(i + j) % 97}`);
    out.push({ id: `m${i}`, title: `memory ${i}`, text: words.join(' ') });
  }
  return out;
}

async function collect(stream) {
  const parts = [];
  const reader = stream.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) parts.push(r.value);
  return parts;
}

function concat(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

const QUERIES = ['deploy3', 'memory 17', 'friday12 rollback40', 'agent5 OR rule9', 'wasm'];
const answers = (index) => QUERIES.map((q) => index.search(q, { limit: 20 }).hits.map((h) => `${h.id}:${h.score.toFixed(5)}`).join(','));

test('a large index round-trips through exportStream, part by part, through a file', async () => {
  // Large enough for its snapshot to be several 4 MiB chunks.
  const index = await Memdex.create();
  await index.addMany(docs(90_000));
  index.remove('m5');
  const want = answers(index);

  const parts = await collect(index.exportStream());
  assert.ok(parts.length > 4, `${parts.length} parts`);
  assert.ok(parts.every((p) => p instanceof Uint8Array && p.length <= 4.1 * 2 ** 20));
  const whole = concat(parts);
  assert.equal(whole.length, index.export().length, 'the same snapshot layout as export()');
  // The parts are one snapshot: import takes them whole, as an iterable, or as a stream.
  assert.deepEqual(answers(await Memdex.import(whole)), want);
  assert.deepEqual(answers(await Memdex.import(parts)), want);
  assert.deepEqual(answers(await Memdex.import(index.exportStream())), want);
  // Cut anywhere (a file read in 64 KiB pieces).
  const dir = await mkdtemp(join(tmpdir(), 'memdex-stream-'));
  try {
    const file = join(dir, 'snapshot.bin');
    await pipeline(Readable.fromWeb(index.exportStream()), createWriteStream(file));
    const copy = await Memdex.import(createReadStream(file, { highWaterMark: 65536 }));
    assert.deepEqual(answers(copy), want);
    assert.equal(copy.size, index.size);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a stream is of the index when it started; later writes do not change it', async () => {
  const index = await Memdex.create();
  index.addAll(docs(200));
  const want = answers(index);
  const stream = index.exportStream();
  index.add({ id: 'late', text: 'deploy3 wasm' });
  index.remove('m17');
  const copy = await Memdex.import(stream);
  assert.deepEqual(answers(copy), want);
  assert.equal(copy.get('late'), undefined);
});

test('a damaged, cut or over-long stream is CORRUPT; a part that is no bytes is USAGE', async () => {
  const index = await Memdex.create();
  index.addAll(docs(500));
  const parts = await collect(index.exportStream());
  const code = (p) => Memdex.import(p).then(() => 'imported', (e) => (e instanceof MemdexError ? e.code : String(e)));
  const flipped = parts.map((p, i) => {
    if (i !== Math.floor(parts.length / 2)) return p;
    const copy = p.slice();
    copy[copy.length >> 1] ^= 0x10;
    return copy;
  });
  assert.equal(await code(flipped), 'CORRUPT');
  assert.equal(await code(parts.slice(0, -1)), 'CORRUPT');
  assert.equal(await code([...parts, new Uint8Array([0])]), 'CORRUPT');
  assert.equal(await code([new Uint8Array([1, 2, 3])]), 'CORRUPT');
  assert.equal(await code([]), 'CORRUPT');
  assert.equal(await code([parts[0], 'text']), 'USAGE');
  assert.equal(await code({ notParts: true }), 'USAGE');
  assert.equal(await code(parts), 'imported');
});

test('exportStream of a closed index is CLOSED', async () => {
  const index = await Memdex.create();
  index.add({ id: 'a', text: 'x' });
  await index.close();
  assert.throws(() => index.exportStream(), (e) => e instanceof MemdexError && e.code === 'CLOSED');
});
