// Shared helpers for the JS side of the harness: JSONL reading, peak-RSS,
// query tokenization shared by adapters that need to pre-split query text.
import fs from 'node:fs';
import readline from 'node:readline';
import zlib from 'node:zlib';

export function readJsonl(path) {
  const out = [];
  for (const line of fs.readFileSync(path, 'utf8').split('\n')) {
    if (line.trim()) out.push(JSON.parse(line));
  }
  return out;
}

/**
 * The first `n` records of a gzipped JSONL file (e.g. the shared
 * `packages/corpus.jsonl.gz`), each passed through `map`; reading stops
 * after the n-th, so a 100k head of the 1M corpus decompresses only that.
 */
export async function readJsonlGzHead(file, n, map = (d) => d) {
  const out = [];
  const lines = readline.createInterface({ input: fs.createReadStream(file).pipe(zlib.createGunzip()), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    out.push(map(JSON.parse(line)));
    if (out.length >= n) break;
  }
  lines.close();
  return out;
}

/**
 * Commits the first `n` `packages` documents (id, title, text) of
 * `dataDir` to an fs index in `dir` with `Memdex` (a package's class).
 */
export async function commitPackages(Memdex, dataDir, n, dir) {
  const docs = await readJsonlGzHead(`${dataDir}/packages/corpus.jsonl.gz`, n, (d) => ({ id: d._id, title: d.title ?? '', text: d.text ?? '' }));
  const writer = await Memdex.open({ storage: 'fs', dir, autoCommit: false });
  await writer.addMany(docs);
  await writer.commit();
  await writer.close();
}

export function peakRssMiB() {
  // Linux: VmHWM is the process' peak resident set; resourceUsage().maxRSS is the same in KiB.
  try {
    const m = /VmHWM:\s+(\d+)\s+kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    if (m) return Number(m[1]) / 1024;
  } catch {}
  return process.resourceUsage().maxRSS / 1024;
}

/** Unicode word runs (letters, marks, digits), lowercased. Used to build query syntax safely. */
export function words(text) {
  return (String(text).toLowerCase().match(/[\p{L}\p{M}\p{N}]+/gu) || []);
}

export function dirSize(p) {
  let total = 0;
  if (!fs.existsSync(p)) return 0;
  const st = fs.statSync(p);
  if (!st.isDirectory()) return st.size;
  for (const e of fs.readdirSync(p)) total += dirSize(`${p}/${e}`);
  return total;
}

/**
 * `once()` (which returns `{ ms, ... }`) timed cold, then, when that took
 * under a second, `repeats - 1` more times: the run with the median `ms`.
 */
export function medianRun(once, repeats) {
  const first = once();
  if (first.ms >= 1000) return first;
  const runs = [first, ...Array.from({ length: repeats - 1 }, once)];
  runs.sort((a, b) => a.ms - b.ms);
  return runs[Math.floor(runs.length / 2)];
}

/** A seeded xorshift32 generator of numbers in [0, 1): runs comparable across machines. */
export function xorshift32(seed) {
  let s = seed >>> 0;
  return () => {
    s ^= s << 13; s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5; s >>>= 0;
    return s / 2 ** 32;
  };
}
