/**
 * memdex/mcp (Node): the memory tools as an MCP server on the official SDK's
 * `McpServer`, and the stdio server `memdex mcp` runs. Needs the optional
 * peer dependencies `@modelcontextprotocol/sdk` and `zod`.
 *
 * ```ts
 * import { Memdex } from 'memdex';
 * import { createMemoryServer } from 'memdex/mcp';
 * import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
 *
 * const index = await Memdex.open({ storage: 'fs', dir: './memory', autoCommit: false });
 * const server = createMemoryServer(index, { namespace: 'agent:coder', commit: true });
 * await server.connect(new StdioServerTransport());
 * ```
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { EmbedOptions, EmbeddingMemdex, LazyMemdex, Memdex, RemoteMemdex } from './index.js';

/** An index of any document type, in process or in a worker. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyMemdex = Memdex<any> | EmbeddingMemdex<any> | RemoteMemdex<any> | LazyMemdex<any>;
import type { ToolCallOptions } from './tools.js';

/** An `McpServer` serving the memory tools (see `memdex/tools`) on `index`. */
export function createMemoryServer(index: AnyMemdex, options?: ToolCallOptions): McpServer;

/** Options of {@link serveStdio}; the flags of `memdex mcp`. */
export interface StdioServerOptions {
  /** Folder of the index (fs storage); created when missing. */
  dir: string;
  /** Pin every tool to this namespace. */
  namespace?: string;
  /** Only the read tools; never writes. */
  readOnly?: boolean;
  /** Index name inside `dir` (default `'memdex'`). */
  name?: string;
  /**
   * Before a read, reload what other processes (a second server on the same
   * folder) committed, at most this often (default 1000 ms; 0 = every read).
   */
  syncMs?: number;
  /** The `cacheBytes` open option: stored fields packed, at most this many bytes unpacked (`--cache-bytes`). */
  cacheBytes?: number;
  /** Protocol streams (default `process.stdin` / `process.stdout`). */
  stdin?: NodeJS.ReadableStream;
  stdout?: NodeJS.WritableStream;
  /**
   * The index's vector field, filled and searched by the tools' `vector`
   * arguments. Default `false`: the memory index has none (the default
   * schema), and a `vector` argument is a `USAGE` error saying so.
   */
  vectorField?: string | false;
  /**
   * An embedder (`memdex mcp --embed <file>`): the path of a module (see
   * {@link loadEmbedder}) or its exports. memory_store and memory_update
   * embed memories that carry no vector, memory_search searches by meaning
   * (`semantic`, hybrid by default). With `dimensions`, its `field`
   * (default `embedding`) is declared in the index's schema.
   */
  embed?: string | EmbedderModule;
  /** Diagnostics (default: stderr). */
  log?: (message: string) => void;
  /** Called after shutdown with the exit code (default `process.exit`). */
  exit?: (code: number) => void;
}

/** What an embedder module exports: the `embed` option of `Memdex.open`, and the field's `dimensions`. */
export interface EmbedderModule extends EmbedOptions {
  /** The vector field's length, to declare it in a new index's schema. */
  dimensions?: number;
}

/**
 * Loads an embedder module: its default export is the embed function
 * (other named exports: `field`, `dimensions`, `text`, `batchSize`,
 * `concurrency`), or an object of those with `embed`.
 */
export function loadEmbedder(file: string): Promise<EmbedderModule>;

/**
 * Serves the memory in `options.dir` over MCP stdio. Every write tool call is
 * committed before it answers (a `CONFLICT` with another writer reloads and
 * re-applies the call). Stdin closing, SIGINT or SIGTERM finish the running
 * calls, commit anything left, close the index and exit.
 */
export function serveStdio(options: StdioServerOptions): Promise<{
  server: McpServer;
  index: Memdex | EmbeddingMemdex;
  /** Shuts down as stdin closing would. */
  shutdown(reason: string): Promise<void>;
}>;
