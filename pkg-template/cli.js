#!/usr/bin/env node
// The `memdex` command. One subcommand for now: `memdex mcp`, the memory
// tools served over MCP stdio (./mcp.js). Logs go to stderr: stdout carries
// the protocol.

const USAGE = `usage: memdex mcp --dir <folder> [--namespace <ns>] [--read-only] [--name <index>] [--sync-ms <ms>] [--embed <module>]

Serves the memory index in <folder> (created when missing) to an MCP client
over stdio: tools memory_search, memory_list, memory_get, memory_related,
memory_store, memory_update, memory_delete.

  --dir <folder>      where the index lives (or MEMDEX_DIR)
  --namespace <ns>    pin every tool to this namespace (or MEMDEX_NAMESPACE);
                      other namespaces are invisible
  --read-only         only the search, list, get and related tools; never writes
  --name <index>      index name inside the folder (default memdex)
  --sync-ms <ms>      reload what other processes committed at most this often
                      before a read (default 1000; 0 = before every read)
  --embed <module>    embed memories and searches with this module's default
                      export, async (texts) => vectors (named exports: field,
                      dimensions, text, batchSize, concurrency)`;

/**
 * The options of `memdex mcp` from its arguments (and environment).
 * @param {string[]} argv
 * @returns {import('./mcp.js').StdioServerOptions}
 */
function parse(argv) {
  /** @type {Omit<import('./mcp.js').StdioServerOptions, 'dir'> & { dir?: string }} */
  const opts = { dir: process.env.MEMDEX_DIR, namespace: process.env.MEMDEX_NAMESPACE || undefined };
  const value = (/** @type {number} */ i, /** @type {string} */ flag) => {
    const v = argv[i + 1];
    if (v === undefined || v.startsWith('--')) throw new Error(`${flag} needs a value`);
    return v;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? arg.split(/=(.*)/s) : [arg, undefined];
    const take = () => (inline !== undefined ? inline : value(i++, flag));
    switch (flag) {
      case '--dir':
        opts.dir = take();
        break;
      case '--namespace':
        opts.namespace = take();
        break;
      case '--name':
        opts.name = take();
        break;
      case '--sync-ms': {
        const ms = Number(take());
        if (!(Number.isFinite(ms) && ms >= 0)) throw new Error('--sync-ms takes a number of milliseconds >= 0');
        opts.syncMs = ms;
        break;
      }
      case '--embed':
        opts.embed = take();
        break;
      case '--read-only':
        opts.readOnly = true;
        break;
      default:
        throw new Error(`unknown option ${arg}`);
    }
  }
  if (!opts.dir) throw new Error('--dir is required (the folder that holds the memory)');
  if (opts.namespace === '') throw new Error('--namespace must not be empty');
  // One namespace: a prefix (`team*`) would read across namespaces while
  // stores went to the literal name.
  if (opts.namespace?.endsWith('*')) throw new Error(`--namespace must be one namespace, not a prefix: ${opts.namespace}`);
  return { ...opts, dir: opts.dir };
}

/** @param {string[]} argv */
async function main(argv) {
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h' || command === 'help') {
    console.log(USAGE);
    return;
  }
  if (command !== 'mcp') {
    console.error(command ? `memdex: unknown command ${command}\n\n${USAGE}` : USAGE);
    process.exit(2);
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    console.log(USAGE);
    return;
  }
  let opts;
  try {
    opts = parse(rest);
  } catch (err) {
    console.error(`memdex mcp: ${/** @type {Error} */ (err).message}\n\n${USAGE}`);
    process.exit(2);
  }
  let serveStdio;
  try {
    ({ serveStdio } = await import('./mcp.js'));
  } catch (thrown) {
    const err = /** @type {{ code?: string, message?: string } | undefined} */ (thrown);
    const missing = /@modelcontextprotocol\/sdk|'zod'/.exec(err?.message ?? '');
    if (err?.code === 'ERR_MODULE_NOT_FOUND' && missing) {
      console.error(
        'memdex mcp needs the MCP SDK and zod, optional peer dependencies of memdex (a library install\n' +
          'leaves them out): npm install @modelcontextprotocol/sdk zod, or npx -p memdex -p @modelcontextprotocol/sdk -p zod memdex mcp',
      );
      process.exit(1);
    }
    throw err;
  }
  await serveStdio(opts);
}

main(process.argv.slice(2)).catch((/** @type {{ code?: string, message?: string }} */ err) => {
  console.error(`memdex mcp: ${err?.code ? `${err.code}: ` : ''}${err?.message ?? err}`);
  process.exit(1);
});
