// The root README's "Running the MCP server before memdex is on npm" runs as
// written: the ```sh checkout and ```sh tarball blocks, each in a fresh
// directory holding the checkout's pkg/ (and, for the checkout block, its
// node_modules) as symlinks. Every line but the last runs in a shell; the
// last starts the server, which the MCP SDK's client drives over stdio:
// list the tools, store a memory, find it, and see it on disk under the
// --dir the README names. `make pkg` is skipped: the pkg-build stage of
// `make test` has just run it (pkg/ is that build).
//
// npx installs the tarball's dependencies from the npm registry or npm's
// cache; the test keeps that cache in target/npm-cache, preferring it
// (--prefer-offline), so a second run needs no network.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { memoryTools } from '../../pkg/tools.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const npmCache = join(root, 'target/npm-cache');

/** The body of the README's fenced block with this info string. */
function block(info) {
  const m = new RegExp('^```' + info + '\\n([\\s\\S]*?)^```$', 'm').exec(readme);
  assert.ok(m, `README.md has no \`\`\`${info} block`);
  return m[1];
}

/** The commands of a shell block: comments and blank lines dropped. */
function commands(info) {
  const lines = block(info)
    .split('\n')
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .filter((l) => l && !l.startsWith('#'));
  for (const l of lines) assert.doesNotMatch(l, /["'`$\\|;&<>]/, `a plain command, split on spaces: ${l}`);
  return lines;
}

function workDir(t, links) {
  const dir = mkdtempSync(join(tmpdir(), 'memdex-readme-mcp-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const name of links) symlinkSync(join(root, name), join(dir, name), 'dir');
  return dir;
}

const env = { ...process.env, npm_config_cache: npmCache, npm_config_prefer_offline: 'true', npm_config_update_notifier: 'false' };

/** Starts `line` in `cwd` as the MCP server and checks it end to end. */
async function driveServer(line, cwd) {
  const [command, ...args] = line.split(/\s+/);
  const transport = new StdioClientTransport({ command, args, cwd, env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d) => {
    stderr += d;
  });
  const client = new Client({ name: 'readme-test', version: '1.0.0' });
  try {
    await client.connect(transport);
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      memoryTools.map((t) => t.name),
      'the server lists the package’s tools',
    );
    const stored = await client.callTool({
      name: 'memory_store',
      arguments: { title: 'Never deploy on Fridays', text: 'Deployments are frozen from Friday noon.', kind: 'rule' },
    });
    assert.ok(!stored.isError, JSON.stringify(stored.content));
    assert.equal(stored.structuredContent.count, 1);
    const found = await client.callTool({ name: 'memory_search', arguments: { query: 'deploying on friday' } });
    assert.ok(!found.isError, JSON.stringify(found.content));
    assert.deepEqual(
      found.structuredContent.hits.map((h) => h.title),
      ['Never deploy on Fridays'],
    );
  } catch (err) {
    err.message += `\nserver stderr:\n${stderr}`;
    throw err;
  } finally {
    await client.close().catch(() => {});
  }
  // --dir from the README: the memory is committed there.
  const dir = args[args.indexOf('--dir') + 1];
  assert.ok(dir, `${line} names a --dir`);
  assert.ok(readdirSync(join(cwd, dir)).length > 0, `${dir} holds the index`);
}

test('README: the MCP server from the checkout (node pkg/cli.js)', { timeout: 120_000 }, async (t) => {
  const lines = commands('sh checkout');
  assert.equal(lines[0], 'make pkg', 'the block builds the package first');
  assert.ok(existsSync(join(root, 'pkg/cli.js')), 'pkg/ is built');
  const cwd = workDir(t, ['pkg', 'node_modules']);
  for (const line of lines.slice(1, -1)) run(line, cwd);
  await driveServer(lines.at(-1), cwd);
});

test('README: the MCP server from a tarball (npm pack, npx --package)', { timeout: 300_000 }, async (t) => {
  const lines = commands('sh tarball');
  const server = lines.at(-1);
  const tarball = /--package\s+(\S+\.tgz)/.exec(server)?.[1];
  assert.ok(tarball, `the server line installs a tarball: ${server}`);
  // Only pkg/: npx must install the dependencies itself, as on a machine
  // without the checkout.
  const cwd = workDir(t, ['pkg']);
  mkdirSync(npmCache, { recursive: true });
  for (const line of lines.slice(0, -1)) run(line, cwd);
  assert.ok(existsSync(join(cwd, tarball)), `the commands before the server wrote ${tarball} (the version in the README is the package's)`);
  await driveServer(server, cwd);

  // The client configuration shown after it runs the same command.
  const config = JSON.parse(block('json'));
  const entry = Object.values(config.mcpServers)[0];
  const name = (token) => (token.includes('/') ? basename(token) : token);
  assert.deepEqual([entry.command, ...entry.args].map(name), server.split(/\s+/).map(name));
});

/** Runs one README command in a shell; it must succeed. */
function run(line, cwd) {
  const r = spawnSync('sh', ['-c', line], { cwd, env, encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, `${line} exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
}
