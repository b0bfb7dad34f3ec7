// The stand-in model of the embed tests (embed.suite.mjs's concept vectors)
// as an embedder module for `memdex mcp --embed`, which runs in its own
// process: `writeEmbedderModule(dir)` writes a module whose calls are
// logged to a file (one line per call: its batch size), and that throws
// while a `.fail` file sits beside the log.
import { appendFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIMENSIONS, conceptVectors } from '../embed.suite.mjs';

/** The embed function logging to `log`. @param {string} log */
export function loggedEmbedder(log) {
  return async (texts) => {
    if (existsSync(`${log}.fail`)) throw new Error('model offline');
    appendFileSync(log, `${texts.length}\n`);
    return conceptVectors(texts);
  };
}

/** Writes `dir/embedder.mjs`; returns its path and how to read and break it. */
export function writeEmbedderModule(dir, { dimensions = DIMENSIONS } = {}) {
  const log = join(dir, 'embed.log');
  const file = join(dir, 'embedder.mjs');
  const helper = new URL(import.meta.url).href;
  writeFileSync(
    file,
    `import { loggedEmbedder } from ${JSON.stringify(helper)};\n` +
      `export default loggedEmbedder(${JSON.stringify(log)});\n` +
      `export const dimensions = ${dimensions};\nexport const batchSize = 4;\n`,
  );
  return {
    file,
    calls: () => (existsSync(log) ? readLines(log) : []),
    fail: (on) => (on ? writeFileSync(`${log}.fail`, '') : rmSync(`${log}.fail`, { force: true })),
  };
}

const readLines = (file) => readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map(Number);
