// Shared by the MCP server tests: start `memdex mcp` from the built package
// as a subprocess and talk to it with the SDK's Client over stdio; every
// successful call's structuredContent is checked against the tool's listed
// outputSchema (ajv), every error against the error contract.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import Ajv from 'ajv';

export const CLI = fileURLToPath(new URL('../../pkg/cli.js', import.meta.url));

export function tempDir(t, prefix = 'memdex-mcp-') {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * Starts `memdex mcp --dir dir ...flags` and connects a client. `call`
 * returns the tool result after checking it against the tool's schemas.
 * `limitKiB`: the server's file size limit (bash `ulimit -f`; larger writes
 * fail with EFBIG), a real filesystem failure for chosen writes.
 */
export async function startServer(dir, flags = [], { limitKiB } = {}) {
  const args = [CLI, 'mcp', '--dir', dir, '--sync-ms', '0', ...flags];
  const transport = new StdioClientTransport(
    limitKiB === undefined
      ? { command: process.execPath, args, stderr: 'pipe' }
      : { command: 'bash', args: ['-c', `ulimit -f ${limitKiB} && exec "$0" "$@"`, process.execPath, ...args], stderr: 'pipe' },
  );
  let stderr = '';
  transport.stderr?.on('data', (d) => {
    stderr += d;
  });
  const client = new Client({ name: 'memdex-test-client', version: '1.0.0' });
  await client.connect(transport);
  const { tools } = await client.listTools();
  const ajv = new Ajv({ strict: true, allErrors: true });
  const validators = new Map(tools.map((t) => [t.name, ajv.compile(t.outputSchema)]));
  const call = async (name, args = {}) => {
    const res = await client.callTool({ name, arguments: args });
    assert.equal(res.content[0].type, 'text');
    if (res.isError) {
      assert.equal(res.structuredContent, undefined, `${name}: errors carry no structuredContent`);
      const code = res._meta?.['memdex/code'];
      assert.match(code ?? '', /^[A-Z_]+$/, `${name}: error code in _meta`);
      assert.ok(res.content[0].text.startsWith(`${code}: `), res.content[0].text);
    } else {
      const validate = validators.get(name);
      assert.ok(validate, `${name} is listed`);
      assert.ok(validate(res.structuredContent), `${name} output: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(res.structuredContent)}`);
    }
    return res;
  };
  return {
    client,
    transport,
    tools,
    call,
    stderr: () => stderr,
    pid: () => transport.pid,
    /** Closes stdin (as an MCP client does) and waits for the process to exit. */
    async close() {
      const proc = transport._process;
      const exited = proc && proc.exitCode === null ? new Promise((r) => proc.once('exit', (code) => r(code))) : Promise.resolve(proc?.exitCode);
      proc?.stdin?.end();
      const code = await exited;
      await client.close().catch(() => {});
      return code;
    },
  };
}

export const text = (res) => res.content[0].text;
export const ids = (res) => (res.structuredContent.hits ?? res.structuredContent.memories).map((m) => m.id);
