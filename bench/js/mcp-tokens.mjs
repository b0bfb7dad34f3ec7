// Measures what the memory tools cost an agent's context: the `tools` of a real `tools/list` answer (official MCP SDK client and server, in process), as JSON, in o200k_base tokens (gpt-tokenizer), for the built package (pkg/) and for the package sources of a git revision (default: the revision before the tool list was cut), unpinned, pinned to a namespace and read-only.
//
//   node bench/js/mcp-tokens.mjs [--before <git-rev>] [--json]
//
// The revision's JS sources are laid over a copy of pkg/ (its wasm and glue)
// under target/, so both lists come from the same server code path.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';

const root = resolve(new URL('../..', import.meta.url).pathname);
const args = process.argv.slice(2);
const before = args.includes('--before') ? args[args.indexOf('--before') + 1] : '72d1893';
const asJson = args.includes('--json');

/** The `tools` of tools/list from the package in `dir`, for each server setup. */
export async function measure(dir) {
  const { Memdex } = await import(join(dir, 'node.js'));
  const { createMemoryServer } = await import(join(dir, 'mcp.js'));
  const index = await Memdex.open();
  const out = {};
  for (const [setup, options] of Object.entries({ unpinned: {}, pinned: { namespace: 'agent:a' }, readOnly: { readOnly: true } })) {
    const server = createMemoryServer(index, options);
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'mcp-tokens', version: '1.0.0' });
    await Promise.all([server.connect(b), client.connect(a)]);
    const { tools } = await client.listTools();
    const json = JSON.stringify(tools);
    out[setup] = { tools: tools.length, bytes: Buffer.byteLength(json), tokens: encode(json).length };
    await client.close();
  }
  index.free();
  return out;
}

/** A copy of pkg/ with the JS sources of pkg-template at `rev` laid over it. */
function packageAt(rev) {
  const dir = join(root, 'target/mcp-tokens', rev);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  cpSync(join(root, 'pkg'), dir, { recursive: true });
  const files = execFileSync('git', ['-C', root, 'ls-tree', '-r', '--name-only', rev, 'pkg-template/'], { encoding: 'utf8' })
    .split('\n')
    .filter((f) => f.endsWith('.js'));
  for (const f of files) {
    const target = join(dir, f.slice('pkg-template/'.length));
    writeFileSync(target, execFileSync('git', ['-C', root, 'show', `${rev}:${f}`], { encoding: 'utf8' }));
  }
  return dir;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const now = await measure(join(root, 'pkg'));
  const then = await measure(packageAt(before));
  if (asJson) {
    console.log(JSON.stringify({ tokenizer: 'o200k_base (gpt-tokenizer)', before: { rev: before, ...then }, after: now }, null, 2));
  } else {
    console.log('MCP tools/list (the `tools` array as JSON), o200k_base tokens (gpt-tokenizer):');
    console.log('| setup | tools | before (' + before + ') | after (pkg/) |');
    console.log('| --- | --- | --- | --- |');
    for (const setup of Object.keys(now)) {
      const b = then[setup];
      const a = now[setup];
      console.log(`| ${setup} | ${a.tools} | ${b.tokens} tokens, ${b.bytes} B | ${a.tokens} tokens, ${a.bytes} B |`);
    }
  }
}
