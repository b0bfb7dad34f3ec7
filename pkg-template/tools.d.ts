/**
 * memdex/tools: the memory tools an agent uses, as MCP tool definitions
 * (`tools/list`) and a dispatcher (`tools/call`). `memdex/mcp` serves them
 * with the official SDK; any other host can too:
 *
 * ```ts
 * import { toolDefinitions, handleToolCall } from 'memdex/tools';
 * const options = { namespace: 'agent:coder', commit: true };
 * // tools/list  -> { tools: toolDefinitions(options) }
 * // tools/call  -> await handleToolCall(index, name, args, options)
 * ```
 *
 * Tools: `memory_search` (ranked full-text search with filters and a
 * character budget; hybrid with a query `vector`), `memory_list` (no query:
 * newest first or by a field, cursor paging), `memory_get` (one or several
 * ids), `memory_related` (memories linked to one, up to 3 links away), `memory_store` (one or
 * several memories; an existing id is an error unless `replace`),
 * `memory_update` (given fields replaced, others kept), `memory_delete` (by
 * ids, or by filter with a preview until `confirm: true`).
 *
 * Ids are unique per namespace: a memory stored in namespace `ns` under id
 * `x` has the engine id `ns + '\u001f' + x` (tool ids cannot contain control
 * characters), and the tools show `x`. Documents added with the JS API
 * (engine id `x` in namespace `ns`) are found by the tools as well.
 */
import type { EmbeddingMemdex, LazyMemdex, Memdex, MemdexErrorData, RemoteMemdex } from './index.js';

/** An index of any document type, in process or in a worker (a lazy one: the read tools). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyMemdex = Memdex<any> | EmbeddingMemdex<any> | RemoteMemdex<any> | LazyMemdex<any>;

/** A JSON Schema (the subset these tools use). */
export interface JsonSchema {
  type?: 'object' | 'string' | 'integer' | 'number' | 'boolean' | 'array';
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  enum?: string[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
}

/** MCP tool annotations (hints for clients, e.g. whether to confirm a call). */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** An MCP tool definition. */
export interface ToolDefinition {
  name: ToolName;
  /** Human-readable title. */
  title: string;
  /** When to use the tool, what it returns, its limits: written for the model. */
  description: string;
  /** JSON Schema of the arguments (`type: 'object'`). */
  inputSchema: JsonSchema & { type: 'object' };
  /** JSON Schema of `structuredContent` in successful results. */
  outputSchema: JsonSchema & { type: 'object' };
  annotations: ToolAnnotations;
}

/** Names of the memdex tools. */
export type ToolName = 'memory_search' | 'memory_list' | 'memory_get' | 'memory_related' | 'memory_store' | 'memory_update' | 'memory_delete';

/**
 * The definitions a server lists for its options: without the `namespace`
 * argument when `namespace` pins one, only search/list/get/related when
 * `readOnly`. The listed schemas leave out the bounds only the argument
 * check reads (lengths, item counts, patterns; a call past one is a
 * `USAGE` error naming it), and output schemas list the required fields.
 */
export function toolDefinitions(options?: Pick<ToolCallOptions, 'namespace' | 'readOnly'>): ToolDefinition[];

/** Every tool for a server without a pinned namespace. */
export const memoryTools: readonly ToolDefinition[];

/** An MCP `tools/call` result. */
export interface ToolResult {
  /** Model-readable text (one item). Errors start with their code, e.g. `NOT_FOUND: ...`. */
  content: [{ type: 'text'; text: string }];
  /** The result as data, matching the tool's `outputSchema` (absent on errors). */
  structuredContent?: Record<string, unknown>;
  /** True when the call failed; nothing was written then. */
  isError: boolean;
  /**
   * On errors: `memdex/code` is the code (`USAGE` bad arguments, `NOT_FOUND`,
   * `EXISTS` id taken, `SCHEMA`, `CONFLICT`, `STORAGE`, `LIMIT`, ...) and
   * `memdex/problems` lists argument problems; `memdex/data` is an engine
   * error's structured fields (`MemdexError.data`).
   */
  _meta?: { 'memdex/code'?: string; 'memdex/problems'?: string[]; 'memdex/data'?: MemdexErrorData };
}

/** Options of {@link handleToolCall}. */
export interface ToolCallOptions {
  /**
   * Pin every call to this namespace (tenant isolation): the `namespace`
   * argument is not accepted, and nothing of other namespaces can be read,
   * changed, deleted, listed or learned of, errors included.
   */
  namespace?: string;
  /** Only the read tools (search, list, get, related). */
  readOnly?: boolean;
  /**
   * Commit after each write call (before it answers). On a `CONFLICT` (another
   * writer committed first) the index is reloaded and the call applied again,
   * up to 5 times. Default false: writes stay in memory (auto-commit or your
   * own `commit()` persists them).
   */
  commit?: boolean;
  /** Told when a commit met a `CONFLICT` and the call is applied again. */
  onConflict?: (tool: ToolName, attempt: number) => void;
  /** Awaited before read tools, e.g. to reload what another process committed. */
  beforeRead?: () => Promise<void> | void;
  /** Upper bound on the `maxChars` budget of search and list answers (also their default when below 4000). */
  maxChars?: number;
  /** Clock in epoch ms, for default timestamps and `since: '7d'` (default `Date.now`). */
  now?: () => number;
  /**
   * The index's vector field, which `vector` arguments fill (memory_store,
   * memory_update) and search (memory_search): its name, or `false` when
   * the index has none (a `vector` argument is then a `USAGE` error saying
   * so). Default: a field named `vector` for stores, the schema's only
   * vector field for searches.
   */
  vectorField?: string | false;
  /**
   * The vector field the index's embedder fills (`embed` of `Memdex.open`):
   * memory_search then searches by meaning by default (`semantic:
   * 'hybrid'`), and memory_update embeds a changed title or text again.
   * Default: none (searches by words unless `semantic` is asked, which
   * then falls back to words and says so).
   */
  embedField?: string;
}

/**
 * Runs a memory tool. Never throws: invalid arguments, unknown tools and
 * engine errors return `isError: true` with a message that says what to do.
 * Calls on one index run one at a time.
 */
export function handleToolCall(
  index: AnyMemdex,
  name: string,
  args: Record<string, unknown> | undefined,
  options?: ToolCallOptions,
): Promise<ToolResult>;

/** Problems with `args` for tool `name` (empty when valid). */
export function validateToolArguments(name: string, args: unknown, options?: Pick<ToolCallOptions, 'namespace' | 'readOnly'>): string[];

/** Resolves when every tool call already made on `index` has finished. */
export function idle(index: AnyMemdex): Promise<void>;

/** Builds an error result (used by hosts for their own failures). */
export function failure(code: string, message: string, extra?: { problems?: string[] }): ToolResult;
