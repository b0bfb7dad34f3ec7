// @ts-check
// POST /mcp: MCP over Streamable HTTP, stateless. Each POST carries one
// JSON-RPC 2.0 message (or a batch); requests are answered with one JSON
// body (no SSE stream, no session: a Mcp-Session-Id sent by the client is
// accepted and ignored, none is issued). GET and DELETE /mcp are 405, which
// the transport spec allows for servers without a server-to-client stream.
//
// Why not the SDK's WebStandardStreamableHTTPServerTransport: the SDK
// server validates with ajv, which compiles schemas with `new Function`,
// refused in workerd. The protocol surface a stateless tool server needs
// is small: initialize, ping, tools/list, tools/call. The tests drive it
// with the official SDK client.
//
// Tools: the package's memdex/tools, scoped to the caller's key. A key of
// exactly one namespace gets them pinned to it (no namespace argument);
// any other key passes `namespace` (required, checked against the key's
// grants; memory_search and memory_list also take a prefix, mcp-prefix.js).
// The namespace's vector field (schema.js) is the tools' `vectorField`.
// Read keys get the read tools only. Read tools run on the
// isolate's copy, writes go to the namespace's writer like REST writes.
// Read-your-writes: a write's result carries `_meta["memdex/generation"]`;
// a later call in the same isolate, or any call that passes that value as
// `_meta["memdex/minGeneration"]`, reads at least that generation.
import { hasRole, mayAccess, soleNamespace } from '../auth.js';
import { ApiError, limitError } from '../errors.js';
import { json, mediaType, originAllowed, readText } from '../http.js';
import { NS_RE } from '../ids.js';
import { tools } from '../memdex.js';
import { discardCopy, isInternal, readCopy } from '../reader.js';
import { takeToken } from '../ratelimit.js';
import { write, writerOf } from '../context.js';
import { toolFields } from '../schema.js';
import { PREFIX_RE, PREFIX_TOOLS, prefixCall } from './mcp-prefix.js';

/** @typedef {import('../context.js').Context} Context */
/** @typedef {import('../auth.js').Principal} Principal */
/** @typedef {import('../memdex.js').ToolResult} ToolResult */
/** @typedef {import('../writes.js').Outcome} Outcome */

export const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
const READ_TOOLS = new Set(['memory_search', 'memory_list', 'memory_get']);
const MAX_CHARS = 100_000;

/** Generations written through this isolate, per namespace (read-your-writes for MCP). */
const seen = new Map();

/** @param {unknown} id @param {number} code @param {string} message */
const rpcError = (id, code, message) => ({ jsonrpc: '2.0', id: id ?? null, error: { code, message } });

/** POST /mcp */
export async function mcp(/** @type {Context} */ c) {
  const origin = c.request.headers.get('origin');
  // DNS rebinding protection (MCP transport spec): a browser page may only
  // reach the server from an allowed origin.
  if (origin !== null && !originAllowed(origin, c.settings)) {
    throw new ApiError('FORBIDDEN', `origin ${origin.slice(0, 200)} is not allowed (MEMDEX_CORS_ORIGINS)`);
  }
  const version = c.request.headers.get('mcp-protocol-version');
  if (version !== null && !PROTOCOL_VERSIONS.includes(version)) {
    return json(rpcError(null, -32600, `unsupported MCP-Protocol-Version ${version}; supported: ${PROTOCOL_VERSIONS.join(', ')}`), 400);
  }
  const type = mediaType(c.request);
  if (type !== 'application/json') {
    throw new ApiError('BAD_REQUEST', `content-type must be application/json, got "${type}"`, { status: 415 });
  }
  let body;
  try {
    body = JSON.parse(await readText(c.request, c.settings.limits.maxBodyBytes));
  } catch (err) {
    if (err instanceof ApiError && err.code === 'LIMIT') throw err;
    return json(rpcError(null, -32700, 'Parse error: the body is not valid JSON'), 400);
  }
  const batch = Array.isArray(body);
  const messages = batch ? body : [body];
  if (messages.length === 0) return json(rpcError(null, -32600, 'Invalid Request: empty batch'), 400);
  // Limits count work: every message costs a token (the request paid for
  // its first), and a batch over the key's tokens is refused whole, before
  // any of it runs, so the answer never depends on where it ran out.
  const limits = c.settings.limits;
  if (messages.length > limits.maxBatchMessages) {
    throw limitError('maxBatchMessages', `${messages.length} JSON-RPC messages in one request; at most ${limits.maxBatchMessages}`);
  }
  if (messages.length > 1) takeToken(c.key.id, c.key.requestsPerMinute ?? limits.requestsPerMinute, messages.length - 1);
  const replies = [];
  for (const m of messages) {
    const reply = await handleMessage(c, m);
    if (reply) replies.push(reply);
  }
  // Only notifications and responses: nothing to answer.
  if (replies.length === 0) return new Response(null, { status: 202 });
  return json(batch ? replies : replies[0]);
}

/**
 * @param {Context} c
 * @param {any} m
 */
async function handleMessage(c, m) {
  if (m === null || typeof m !== 'object' || Array.isArray(m) || m.jsonrpc !== '2.0') {
    return rpcError(m?.id, -32600, 'Invalid Request: expected a JSON-RPC 2.0 message');
  }
  const isRequest = typeof m.method === 'string' && m.id !== undefined && m.id !== null;
  if (!isRequest) {
    if (typeof m.method === 'string' || 'result' in m || 'error' in m) return null; // notification or response
    return rpcError(m.id, -32600, 'Invalid Request: no method');
  }
  if (typeof m.id !== 'string' && typeof m.id !== 'number') return rpcError(null, -32600, 'Invalid Request: id must be a string or number');
  const params = m.params ?? {};
  if (typeof params !== 'object' || Array.isArray(params)) return rpcError(m.id, -32602, 'Invalid params: expected an object');
  try {
    switch (m.method) {
      case 'initialize':
        return { jsonrpc: '2.0', id: m.id, result: initialize(c.key, params) };
      case 'ping':
        return { jsonrpc: '2.0', id: m.id, result: {} };
      case 'tools/list':
        return { jsonrpc: '2.0', id: m.id, result: { tools: definitions(c.key) } };
      case 'tools/call': {
        if (typeof params.name !== 'string') return rpcError(m.id, -32602, 'Invalid params: "name" must be a string');
        const args = params.arguments ?? {};
        if (args === null || typeof args !== 'object' || Array.isArray(args)) {
          return rpcError(m.id, -32602, 'Invalid params: "arguments" must be an object');
        }
        const min = params._meta?.['memdex/minGeneration'];
        return { jsonrpc: '2.0', id: m.id, result: await callTool(c, params.name, args, Number.isInteger(min) ? min : 0) };
      }
      default:
        return rpcError(m.id, -32601, `Method not found: ${String(m.method).slice(0, 100)}`);
    }
  } catch (err) {
    console.error('memdex mcp: internal error', err);
    return rpcError(m.id, -32603, 'Internal error');
  }
}

/** @param {Principal} key @param {Record<string, any>} params */
function initialize(key, params) {
  const asked = params.protocolVersion;
  const sole = soleNamespace(key);
  return {
    protocolVersion: PROTOCOL_VERSIONS.includes(asked) ? asked : PROTOCOL_VERSIONS[0],
    capabilities: { tools: { listChanged: false } },
    serverInfo: { name: 'memdex', title: 'memdex memory', version: '0.1.0' },
    instructions: sole
      ? `Long-term memory of namespace "${sole}": search before answering from past work, store decisions, rules and findings.`
      : `Long-term memory in namespaces (this key may use: ${key.namespaces.join(', ')}); pass "namespace" with every call.`,
  };
}

/** The tool definitions this key may use. @param {Principal} key */
function definitions(key) {
  const readOnly = !hasRole(key, 'write');
  const sole = soleNamespace(key);
  if (sole) return tools.toolDefinitions({ namespace: sole, readOnly });
  const allowed = key.namespaces.join(', ');
  return tools.toolDefinitions({ readOnly }).map((t) => {
    const ns = /** @type {any} */ (t.inputSchema.properties)?.namespace ?? {};
    return {
      ...t,
      inputSchema: {
        ...t.inputSchema,
        properties: {
          ...t.inputSchema.properties,
          namespace: {
            ...ns,
            description:
              `Namespace to use. This key may use ${allowed} (a "*" there ends a prefix of the names it may use). Ids are unique within a namespace. ` +
              'memory_search and memory_list also take a prefix ending in * ("user:*": every namespace starting with "user:" that this key may use).',
          },
        },
        required: [...new Set([...(t.inputSchema.required ?? []), 'namespace'])],
      },
    };
  });
}

/**
 * @param {Context} c
 * @param {string} name
 * @param {Record<string, unknown>} args
 * @param {number} minGeneration
 * @returns {Promise<ToolResult>}
 */
async function callTool(c, name, args, minGeneration) {
  const key = c.key;
  const sole = soleNamespace(key);
  let ns = sole;
  let rest = args;
  const canWrite = hasRole(key, 'write');
  if (!sole) {
    const { namespace, ...others } = args;
    const allowed = `this key may use ${key.namespaces.join(', ')}`;
    if (typeof namespace === 'string' && PREFIX_RE.test(namespace)) {
      if (!PREFIX_TOOLS.has(name)) {
        return tools.failure('USAGE', `"namespace": "${namespace}" is a prefix; ${name} works on one namespace: give its full name (${allowed}; memory_search and memory_list take prefixes).`);
      }
      const problems = tools.validateToolArguments(name, others, { namespace: 'prefix', readOnly: !canWrite });
      if (problems.length) return tools.failure('USAGE', `Invalid arguments for ${name}: ${problems.join('; ')}.`, { problems });
      return prefixCall(c, name, namespace, others, (ns, a) => readTool(c, ns, name, a, seen.get(ns) ?? 0));
    }
    if (namespace === undefined) {
      return tools.failure('USAGE', `Invalid arguments for ${name}: "namespace" is missing; pass the namespace to use (${allowed}; memory_search and memory_list also take a prefix ending in *).`);
    }
    if (typeof namespace !== 'string' || !NS_RE.test(namespace)) {
      return tools.failure(
        'USAGE',
        `Invalid arguments for ${name}: "namespace" ${JSON.stringify(namespace).slice(0, 140)} is not a namespace: 1 to 128 characters of A-Z a-z 0-9 . _ : @ -, or for memory_search and memory_list a prefix ending in * (${allowed}).`,
      );
    }
    if (!mayAccess(key, namespace)) return tools.failure('FORBIDDEN', `This API key has no access to namespace "${namespace}".`);
    ns = namespace;
    rest = others;
  }
  const nsName = /** @type {string} */ (ns);
  const problems = tools.validateToolArguments(name, rest, { namespace: nsName, readOnly: !canWrite });
  if (problems.length) return tools.failure('USAGE', `Invalid arguments for ${name}: ${problems.join('; ')}.`, { problems });

  if (READ_TOOLS.has(name)) return readTool(c, nsName, name, rest, Math.max(minGeneration, seen.get(nsName) ?? 0));

  const outcome = await write(c, nsName, { kind: 'tool', name, args: rest, maxChars: MAX_CHARS });
  if (!outcome.ok) {
    const e = outcome.error;
    const msg = e.code === 'NOT_FOUND' ? notYet(nsName) : e.message;
    return tools.failure(e.code, msg);
  }
  const result = /** @type {ToolResult} */ (outcome.value);
  const generation = /** @type {number} */ (outcome.generation);
  if (seen.size >= 10_000) seen.clear(); // bounded; forgetting only costs a stale read
  if (generation > (seen.get(nsName) ?? 0)) seen.set(nsName, generation);
  return /** @type {ToolResult} */ ({ ...result, _meta: { ...result._meta, 'memdex/generation': generation } });
}

/**
 * A read tool call on namespace `ns`: on the isolate's copy, else (a newer
 * generation needed) on the writer's index.
 *
 * @param {Context} c
 * @param {string} ns
 * @param {string} name
 * @param {Record<string, unknown>} args  without `namespace`
 * @param {number} need  minimum generation
 * @returns {Promise<ToolResult>}
 */
async function readTool(c, ns, name, args, need) {
  let index;
  try {
    index = await readCopy(c.env, c.ctx, ns, need);
  } catch (err) {
    if (err instanceof ApiError && err.code === 'NOT_FOUND') return tools.failure('NOT_FOUND', notYet(ns));
    throw err;
  }
  if (index) {
    const options = { namespace: ns, readOnly: true, maxChars: MAX_CHARS, ...toolFields(index) };
    const result = await tools.handleToolCall(index, name, args, options);
    if (isInternal(result)) discardCopy(ns, index);
    return result;
  }
  const outcome = /** @type {Outcome} */ (await writerOf(c.env, ns).readTool(ns, name, args, MAX_CHARS));
  if (!outcome.ok) {
    const e = outcome.error;
    return tools.failure(e.code, e.code === 'NOT_FOUND' ? notYet(ns) : e.message);
  }
  return /** @type {ToolResult} */ (outcome.value);
}

const notYet = (/** @type {string} */ ns) => `No memories in namespace "${ns}" yet; store some with memory_store.`;
