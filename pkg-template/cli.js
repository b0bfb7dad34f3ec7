#!/usr/bin/env node
// The `memdex` command: `memdex mcp`, the memory tools served over MCP
// stdio (./mcp.js; logs go to stderr: stdout carries the protocol), and
// `memdex migrate`, a rebuild under a new schema (Memdex.migrate).

const USAGE = `usage: memdex mcp --dir <folder> [--namespace <ns>] [--read-only] [--name <index>] [--sync-ms <ms>] [--cache-bytes <n>] [--embed <module>]

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
  --cache-bytes <n>   keep stored fields packed, at most <n> bytes unpacked
  --embed <module>    embed memories and searches with this module's default
                      export, async (texts) => vectors (named exports: field,
                      dimensions, text, batchSize, concurrency)

usage: memdex migrate <dir> [--schema <file.json>] [--language <lang>] [--name <index>] [--to <name>]

Rebuilds the index in <dir> from its stored documents (vectors and links
included) under a new schema or analyzer, atomically: a crash leaves the old
index as it was (and at a new name, nothing), or the complete new one.

  --schema <file.json>  the fields to add or change, as the \`schema\` open option
                        ({ "tags": "keyword" }); or an object of Memdex.migrate
                        \`to\` options ({ "schema": {...}, "defaultSchema": false,
                        "analyzer": {...} }): defaultSchema false drops the
                        fields it leaves out
  --language <lang>     the analyzer language (english, french, none, ...)
  --name <index>        index name inside the folder (default memdex)
  --to <name>           build a new index of this name; the old one stays`;

/** Keys that make a --schema file an object of `to` options rather than a field map. */
const TO_KEYS = ['schema', 'defaultSchema', 'language', 'analyzer', 'k1', 'b'];

/**
 * `Memdex.migrate` options from the arguments of `memdex migrate`.
 * @param {string[]} argv
 * @returns {Promise<import('./index.js').MigrateOptions>}
 */
async function parseMigrate(argv) {
  const [dir, ...rest] = argv;
  if (!dir || dir.startsWith('--')) throw new Error('the folder of the index comes first: memdex migrate <dir> ...');
  /** @type {Record<string, unknown>} */
  const to = {};
  let name;
  for (let i = 0; i < rest.length; i++) {
    const flag = rest[i];
    const v = rest[++i];
    if (v === undefined || v.startsWith('--')) throw new Error(`${flag} needs a value`);
    if (flag === '--schema') {
      const { readFile } = await import('node:fs/promises');
      const spec = JSON.parse(await readFile(v, 'utf8'));
      if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) throw new Error(`${v} must hold a JSON object`);
      const keys = Object.keys(spec);
      const options = keys.length > 0 && keys.every((k) => TO_KEYS.includes(k)) && keys.some((k) => typeof spec[k] === 'object');
      Object.assign(to, options ? spec : { schema: spec });
    } else if (flag === '--language') to.language = v;
    else if (flag === '--name') name = v;
    else if (flag === '--to') to.name = v;
    else throw new Error(`unknown option ${flag}`);
  }
  return /** @type {import('./index.js').MigrateOptions} */ ({ from: { storage: 'fs', dir, name }, to });
}

/** @param {string[]} argv */
async function runMigrate(argv) {
  let options;
  try {
    options = await parseMigrate(argv);
  } catch (err) {
    console.error(`memdex migrate: ${/** @type {Error} */ (err).message}\n\n${USAGE}`);
    process.exit(2);
  }
  const { Memdex } = await import('./node.js');
  const done = await Memdex.migrate(options);
  console.log(`migrated index '${done.name}': ${done.documents} documents, generation ${done.generation}`);
}

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
      case '--cache-bytes':
        opts.cacheBytes = Number(take()); // the engine refuses what is not a byte count (USAGE)
        break;
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
  if (command === 'migrate' && !rest.includes('--help') && !rest.includes('-h')) return runMigrate(rest);
  if (command !== 'mcp' && command !== 'migrate') {
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
  console.error(`memdex ${process.argv[2] === 'migrate' ? 'migrate' : 'mcp'}: ${err?.code ? `${err.code}: ` : ''}${err?.message ?? err}`);
  process.exit(1);
});
