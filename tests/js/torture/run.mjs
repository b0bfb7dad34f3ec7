// Drives a torture run (see ../torture.test.mjs and bench/torture.mjs):
// starts writer and reader processes on `dir`, SIGKILLs a random writer
// every 0.3-1.5 s and starts a new one in its place, stops everything after
// `seconds`, and returns what happened.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const here = (f) => fileURLToPath(new URL(f, import.meta.url));

function lines(child, onLine) {
  let buf = '';
  child.stdout.on('data', (chunk) => {
    buf += chunk;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      onLine(buf.slice(0, i));
      buf = buf.slice(i + 1);
    }
  });
}

/**
 * @param {{ dir: string, seconds: number, writers: ('commit' | 'close')[], readers: number }} options
 */
export async function runTorture({ dir, seconds, writers, readers }) {
  const stats = { writers: writers.length, readers, commits: 0, conflicts: 0, kills: 0, opens: 0, acked: [], readerErrors: [], writerErrors: [] };
  const live = new Set();
  let incarnation = 0;
  let stopping = false;

  const startWriter = (slot) => {
    const tag = `w${slot}i${incarnation++}`;
    const child = spawn(process.execPath, [here('./writer.mjs'), dir, tag, writers[slot]], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    lines(child, (line) => {
      if (line.startsWith('ack ')) stats.acked.push(...line.slice(4).split(','));
      else if (line.startsWith('commit')) stats.commits++;
      else if (line === 'conflict') stats.conflicts++;
    });
    child.on('exit', (code, signal) => {
      live.delete(child);
      if (signal !== 'SIGKILL' && !stopping) stats.writerErrors.push(`${tag} exited ${code}: ${stderr.slice(-1500)}`);
      if (!stopping) startWriter(slot);
    });
    child.slot = slot;
    live.add(child);
  };
  const readerProcs = [];
  for (let r = 0; r < readers; r++) {
    const child = spawn(process.execPath, [here('./reader.mjs'), dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    lines(child, (line) => {
      if (line.startsWith('open ')) stats.opens++;
      else if (line.startsWith('error ')) stats.readerErrors.push(line);
    });
    readerProcs.push(child);
  }
  writers.forEach((_, slot) => startWriter(slot));

  const end = Date.now() + seconds * 1000;
  while (Date.now() < end) {
    await new Promise((r) => setTimeout(r, 300 + Math.random() * 1200));
    const victims = [...live].filter((c) => c.exitCode === null);
    const victim = victims[Math.floor(Math.random() * victims.length)];
    if (victim && Date.now() < end) {
      victim.kill('SIGKILL');
      stats.kills++;
    }
  }
  stopping = true;
  const exits = [...live, ...readerProcs].map((c) => (c.exitCode !== null || c.signalCode !== null ? null : new Promise((r) => c.on('exit', r))));
  for (const c of [...live, ...readerProcs]) c.kill('SIGKILL');
  await Promise.all(exits);
  if (stats.writerErrors.length) throw new Error(`writer failed: ${stats.writerErrors.join('\n')}`);
  return stats;
}
