/**
 * memdex/tools: agent tool definitions for memory search and storage,
 * compatible with the Model Context Protocol (MCP) `tools/list` and
 * `tools/call` shapes, plus a dispatcher.
 *
 * ```ts
 * import { memoryTools, handleToolCall } from 'memdex/tools';
 * // tools/list  -> { tools: memoryTools }
 * // tools/call  -> await handleToolCall(index, name, args)
 * ```
 */
import type { Memdex, RemoteMemdex } from './index.js';

/** A JSON Schema (the subset these tools use). */
export interface JsonSchema {
  type?: 'object' | 'string' | 'integer' | 'number' | 'boolean' | 'array';
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean;
  enum?: string[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
}

/** An MCP tool definition. */
export interface ToolDefinition {
  /** `memory_search`, `memory_store`, `memory_get` or `memory_delete`. */
  name: ToolName;
  /** Human-readable title. */
  title: string;
  /** What the tool does, written for the model. */
  description: string;
  /** JSON Schema of the arguments (`type: 'object'`). */
  inputSchema: JsonSchema & { type: 'object' };
}

/** Names of the memdex tools. */
export type ToolName = 'memory_search' | 'memory_store' | 'memory_get' | 'memory_delete';

/** The four memory tools, ready for MCP `tools/list`. */
export const memoryTools: readonly ToolDefinition[];

/** An MCP `tools/call` result. */
export interface ToolResult {
  /** Human/model-readable text (one item). */
  content: [{ type: 'text'; text: string }];
  /** The same result as data (see each tool); `{ error, problems? }` when `isError`. */
  structuredContent: Record<string, unknown>;
  /** True when the arguments were invalid or the call failed; the text says why. */
  isError: boolean;
}

/** Options of {@link handleToolCall}. */
export interface ToolCallOptions {
  /** Pin every call to this namespace (tenant isolation); the model may not name another. */
  namespace?: string;
  /** Upper bound on `maxChars` for search results (default 20000; also the default budget when smaller than 4000). */
  maxChars?: number;
  /** Commit after `memory_store` / `memory_delete` (default false: rely on auto-commit). */
  commit?: boolean;
}

/**
 * Runs a memory tool. Never throws: invalid arguments, unknown tools and
 * engine errors return `isError: true` with a readable message.
 *
 * Search results are bounded by `limit` (default 5, max 50) and a character
 * budget `maxChars` (default 4000); truncation is stated in the text and in
 * `structuredContent.truncated` / `omitted`.
 */
export function handleToolCall(
  index: Memdex | RemoteMemdex,
  name: string,
  args: Record<string, unknown> | undefined,
  options?: ToolCallOptions,
): Promise<ToolResult>;

/** Problems with `args` for tool `name` (empty when valid). */
export function validateToolArguments(name: string, args: unknown): string[];
