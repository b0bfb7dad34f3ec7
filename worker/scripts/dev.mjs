// `make worker`: serves the memdex Worker locally in workerd (through
// Miniflare, the engine of `wrangler dev --local`), with KV and Durable
// Object state persisted under .worker-state/ (MEMDEX_STATE_DIR), so a
// restart keeps the data. No Cloudflare account, no login, no network.
// The Worker is built against the packed package (install-memdex.mjs, run
// by miniflare-options.mjs's bundle), as wrangler would deploy it.
//
// Keys and settings come from worker/.dev.vars (MEMDEX_DEV_VARS); when it
// does not exist, one is written with a new random admin key for every
// namespace, which is printed once.
//
// Environment: PORT (default 8787), HOST (127.0.0.1), MEMDEX_STATE_DIR,
// MEMDEX_DEV_VARS.
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { Miniflare } from 'miniflare';
import { ROOT, miniflareOptions, parseDevVars, workerOptions } from './miniflare-options.mjs';
import { newKey } from './key.mjs';

const port = Number(process.env.PORT || 8787);
const host = process.env.HOST || '127.0.0.1';
const state = resolve(process.env.MEMDEX_STATE_DIR || `${ROOT}/.worker-state`);
const varsPath = resolve(process.env.MEMDEX_DEV_VARS || `${ROOT}/worker/.dev.vars`);

if (!existsSync(`${ROOT}/pkg/memdex_bg.wasm`)) {
  console.error('pkg/ is not built: run `make pkg` first');
  process.exit(1);
}
if (!existsSync(varsPath)) {
  const { key, entry } = await newKey({ name: 'local-admin', namespaces: ['*'], role: 'admin' });
  writeFileSync(
    varsPath,
    `# Local development settings for \`make worker\` (never deployed; see .dev.vars.example).\n` +
      `# The key of the entry below (shown once): ${key}\n` +
      `MEMDEX_API_KEYS='${JSON.stringify([entry])}'\n`,
  );
  console.log(`wrote ${varsPath} with a new admin key for every namespace:\n\n  ${key}\n`);
}
const vars = parseDevVars(readFileSync(varsPath, 'utf8'));
mkdirSync(state, { recursive: true });

const mf = new Miniflare(miniflareOptions({ persist: state, port, host, workers: [workerOptions({ vars })] }));
const url = await mf.ready;
console.log(`memdex worker listening on ${url} (state: ${state})`);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, async () => {
    if (stopping) return;
    stopping = true;
    await mf.dispose().catch(() => {});
    process.exit(0);
  });
}
