// memdex/mcp (Node only): the memory tools of ./tools.js as an MCP server,
// built on the official SDK's McpServer, and `serveStdio`, which `memdex mcp`
// (./cli.js) runs. Kept out of every other entry point: the SDK and zod,
// dependencies of the package, are imported only here, so they never reach
// a browser bundle.
import { mkdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import * as z from 'zod';
import { Memdex } from './node.js';
import { handleToolCall, idle, toolDefinitions } from './tools.js';
import { withIndex } from './tools-common.js';
import { EMBEDDER } from './embed-ops.js';
import { MemdexError } from './memdex-error.js';

const VERSION = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')).version;

// McpServer takes zod schemas and lists them converted to JSON Schema. The
// tools are defined in JSON Schema (the Worker serves them without zod), so
// each goes in as an object schema that accepts any object and carries the
// JSON Schema as metadata, which zod's conversion emits unchanged: clients
// see exactly the definitions. Arguments are then checked by
// handleToolCall, whose errors name the argument and say what to do, and
// structured outputs are checked against the same schemas by the tests.
/** @param {import('./tools.js').JsonSchema} jsonSchema */
function asZod(jsonSchema) {
  const { type, ...rest } = jsonSchema;
  return z.looseObject({}).meta(rest);
}

/** @param {import('./tools.js').ToolCallOptions} options */
function instructions(options) {
  const scope = options.namespace !== undefined ? ` Everything is scoped to namespace "${options.namespace}".` : '';
  const writes = options.readOnly
    ? ' This server is read-only.'
    : ' Store durable knowledge (decisions and why, rules, preferences, observations) with memory_store; correct with memory_update.';
  return (
    'Long-term memory with full-text search. Before answering questions about past work, search it (memory_search) ' +
    `or browse recent memories (memory_list); fetch full texts with memory_get.${writes}${scope}`
  );
}

/**
 * An McpServer serving the memory tools on `index`. `options` are those of
 * `handleToolCall` (namespace, readOnly, commit, beforeRead, vectorField).
 * @param {Parameters<typeof handleToolCall>[0]} index a Memdex (or a RemoteMemdex, or a LazyMemdex: read tools only)
 * @param {import('./tools.js').ToolCallOptions} [options]
 */
export function createMemoryServer(index, options = {}) {
  options = withIndex(index, options);
  const server = new McpServer(
    { name: 'memdex', title: 'memdex memory', version: VERSION },
    { capabilities: { tools: {} }, instructions: instructions(options) },
  );
  for (const tool of toolDefinitions(options)) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: asZod(tool.inputSchema),
        outputSchema: asZod(tool.outputSchema),
        annotations: tool.annotations,
      },
      // Our results carry what the SDK's CallToolResult needs; its type wants an index signature.
      (args) => /** @type {Promise<any>} */ (handleToolCall(index, tool.name, args, options)),
    );
  }
  return server;
}

/**
 * Picks up what other processes committed, before reads, at most every
 * `minMs` (`Memdex#refresh`: one read of the stored manifest, a reload only
 * when it changed).
 * @param {{ refresh(): Promise<boolean> }} index
 * @param {number} minMs
 * @param {(message: string) => void} log
 */
function followCommits(index, minMs, log) {
  let last = 0;
  return async function beforeRead() {
    if (Date.now() - last < minMs) return;
    last = Date.now();
    try {
      await index.refresh();
    } catch (err) {
      log(`reload failed, answering from the state loaded before: ${/** @type {Error} */ (err)?.message ?? err}`);
    }
  };
}

/**
 * The embedder module of `memdex mcp --embed <file>`: its default export
 * is the embed function (other exports: `field`, `dimensions`, `text`,
 * `batchSize`, `concurrency`), or an object of those with `embed`.
 * @param {string} file
 * @returns {Promise<import('./mcp.js').EmbedderModule>}
 */
export async function loadEmbedder(file) {
  /** @type {Record<string, any>} */
  const mod = await import(pathToFileURL(resolve(file)).href);
  const spec = typeof mod.default === 'function' ? { ...mod, embed: mod.default } : (mod.default ?? mod);
  if (spec === null || typeof spec !== 'object' || typeof spec.embed !== 'function') {
    throw new MemdexError('USAGE', `--embed ${file}: the module must export default async (texts) => vectors, or { embed, field, dimensions }`);
  }
  const { field, dimensions, text, batchSize, concurrency, embed } = spec;
  return /** @type {import('./mcp.js').EmbedderModule} */ (
    Object.fromEntries(Object.entries({ field, dimensions, text, batchSize, concurrency, embed }).filter(([, v]) => v !== undefined))
  );
}

/**
 * Open options of the served index for an embedder: its `field` (default
 * `embedding`) declared with `dimensions`, when given.
 * @param {import('./mcp.js').EmbedderModule | undefined} spec
 */
function embedOpen(spec) {
  if (spec === undefined) return {};
  const { dimensions, ...embed } = spec;
  if (dimensions === undefined) return { embed };
  const field = embed.field ?? 'embedding';
  return { schema: { [field]: { type: /** @type {const} */ ('vector'), dimensions } }, embed: { ...embed, field } };
}

/**
 * Serves the memory in `dir` over stdio until stdin closes or the process
 * gets SIGINT/SIGTERM, then finishes running calls, commits and exits.
 * Every write tool call is committed before it answers.
 * @param {import('./mcp.js').StdioServerOptions} options
 */
export async function serveStdio({
  dir,
  namespace,
  readOnly = false,
  name = 'memdex',
  syncMs = 1000,
  cacheBytes,
  stdin = process.stdin,
  stdout = process.stdout,
  vectorField = false,
  embed,
  log = (message) => void process.stderr.write(`memdex mcp: ${message}\n`),
  exit = (code) => process.exit(code),
}) {
  if (!readOnly) mkdirSync(dir, { recursive: true });
  const spec = typeof embed === 'string' ? await loadEmbedder(embed) : embed;
  const opened = await Memdex.open({ storage: 'fs', dir, name, autoCommit: false, cacheBytes, ...embedOpen(spec) });
  const embedField = opened[EMBEDDER]?.field;
  // Typed as index.d.ts declares it: with an embedder, the calls that may embed return Promises.
  const index = /** @type {import('./index.js').Memdex | import('./index.js').EmbeddingMemdex} */ (/** @type {unknown} */ (opened));
  const beforeRead = followCommits(index, syncMs, log);
  const server = createMemoryServer(index, {
    namespace,
    readOnly,
    commit: !readOnly,
    beforeRead,
    vectorField: vectorField === false && embedField !== undefined ? embedField : vectorField,
    embedField,
    onConflict: (tool, attempt) => log(`${tool}: another process committed first; reloaded and applied the call again (attempt ${attempt + 1})`),
  });
  // The SDK types its streams as node:stream's classes; any Node stream pair works.
  const transport = new StdioServerTransport(
    /** @type {import('node:stream').Readable} */ (stdin),
    /** @type {import('node:stream').Writable} */ (stdout),
  );

  /** @type {Promise<void> | null} */
  let closing = null;
  const shutdown = (/** @type {string} */ why) => {
    closing ??= (async () => {
      log(`shutting down (${why})`);
      let code = 0;
      try {
        await idle(index);
        // Writes are committed per call (a failed call's are dropped at
        // once); close() commits anything else, or fails and frees.
        if (readOnly) index.free();
        else await index.close();
      } catch (err) {
        log(`final commit failed: ${/** @type {Error} */ (err)?.message ?? err}`);
        index.free();
        code = 1;
      }
      await server.close().catch(() => {});
      exit(code);
    })();
    return closing;
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  stdin.once('end', () => shutdown('stdin closed'));
  transport.onclose = () => shutdown('transport closed');
  await server.connect(transport);
  log(
    `serving ${dir}${namespace !== undefined ? ` (namespace ${namespace})` : ''}${readOnly ? ' read-only' : ''}: ` +
      `${index.size} memories, generation ${index.generation}${embedField ? `, embedding into ${embedField}` : ''}`,
  );
  return { server, index, shutdown };
}
