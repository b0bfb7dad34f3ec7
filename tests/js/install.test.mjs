// What `npm install memdex` brings into a project: memdex alone (the MCP
// server's SDK and zod are optional peer dependencies), and a `memdex mcp`
// that, without them, says what to install instead of a stack trace.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(new URL('../..', import.meta.url).pathname);
const env = {
  ...process.env,
  npm_config_cache: join(root, 'target/npm-cache'),
  npm_config_update_notifier: 'false',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
};
const run = (cmd, args, cwd) => spawnSync(cmd, args, { cwd, env, encoding: 'utf8', timeout: 120_000 });

test('npm install of the packed package installs memdex alone; memdex mcp names what it lacks', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'memdex-install-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const pack = run('npm', ['pack', join(root, 'pkg'), '--pack-destination', dir, '--silent'], root);
  assert.equal(pack.status, 0, pack.stderr);
  const tarball = join(dir, pack.stdout.trim().split('\n').pop());

  const project = join(dir, 'app');
  run('mkdir', ['-p', project], dir);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true }));
  // --offline: nothing but the tarball may be needed.
  const install = run('npm', ['install', '--offline', tarball], project);
  assert.equal(install.status, 0, install.stderr);
  const installed = readdirSync(join(project, 'node_modules')).filter((n) => !n.startsWith('.'));
  assert.deepEqual(installed, ['memdex'], 'packages installed with memdex');

  const mcp = run(process.execPath, [join(project, 'node_modules/memdex/cli.js'), 'mcp', '--dir', join(dir, 'memory')], project);
  assert.equal(mcp.status, 1);
  assert.match(mcp.stderr, /optional peer dependencies of memdex/);
  assert.match(mcp.stderr, /npm install @modelcontextprotocol\/sdk zod/);
});
