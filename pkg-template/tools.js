// memdex/tools: the memory tools an agent uses (MCP-compatible definitions:
// name, title, description written for a model, JSON Schema input, output
// schema of `structuredContent`, annotations) and `handleToolCall`, which
// runs them against an index. The stdio server (`memdex mcp`, ./mcp.js) and
// the edge Worker serve these same definitions.
//
// `handleToolCall` never throws: invalid arguments and engine errors come
// back as `isError: true` results whose text starts with a code (USAGE,
// NOT_FOUND, EXISTS, SCHEMA, CONFLICT, ...) and says what to do next.
//
// Tenancy: `options.namespace` pins every call to one namespace. The
// `namespace` argument then disappears from the schemas, every read is
// filtered by it, and ids are per namespace (see ./tools-ops.js), so no
// result or error can name or reveal another namespace's memories.
import { failure, runTool, SEP } from './tools-ops.js';
import { withIndex } from './tools-common.js';
import { ALL, LISTED_AS, NAMESPACE_ARG } from './tools-defs.js';

export { failure };

/** @typedef {import('./tools.js').JsonSchema} JsonSchema */
/** @typedef {import('./tools.js').ToolDefinition} ToolDefinition */
/** @typedef {import('./tools.js').ToolCallOptions} ToolCallOptions */
/** @typedef {import('./tools.js').ToolResult} ToolResult */
/** @typedef {import('./tools.js').ToolName} ToolName */
/** @typedef {import('./tools-common.js').ToolIndex} ToolIndex */

/**
 * Every tool in full for a server: without `namespace` arguments when
 * pinned to a namespace, and only the read tools when `readOnly`. Calls
 * are checked against these.
 * @param {Pick<ToolCallOptions, 'namespace' | 'readOnly'>} options
 * @returns {ToolDefinition[]}
 */
function fullDefinitions(options) {
  const pinned = options.namespace !== undefined;
  return ALL.filter((t) => !options.readOnly || t.annotations.readOnlyHint).map((t) => {
    if (pinned) return t;
    // Outputs keep their optional `namespace` either way: pinned servers
    // never fill it in.
    return {
      ...t,
      inputSchema: { ...t.inputSchema, properties: { ...t.inputSchema.properties, namespace: NAMESPACE_ARG } },
    };
  });
}

/** Keywords only the argument check needs: a model calling a tool does not, and each listing costs its context. */
const CHECK_ONLY = new Set(['pattern', 'minLength', 'maxLength', 'minItems', 'maxItems']);

/**
 * `schema` without the check-only keywords, at every depth; with
 * `shallow`, objects keep only their required properties (an output
 * schema: what else a result may hold is in the tool's description and
 * the package README).
 * @param {JsonSchema} schema
 * @param {boolean} [shallow]
 * @param {number} [depth]
 * @returns {JsonSchema}
 */
function listed(schema, shallow = false, depth = 0) {
  const short = LISTED_AS.get(schema);
  if (short) return short;
  if (shallow && schema.type === 'object') {
    const required = schema.required ?? [];
    const properties = Object.fromEntries(required.map((k) => [k, listed(schema.properties?.[k] ?? {}, shallow, depth + 1)]));
    return required.length ? { type: 'object', properties, required } : { type: 'object' };
  }
  /** @type {Record<string, unknown>} */
  const out = {};
  const inner = (/** @type {JsonSchema} */ s) => listed(s, shallow, depth + 1);
  for (const [key, value] of Object.entries(schema)) {
    // Nested objects are checked for unknown keys either way (see check()).
    if (CHECK_ONLY.has(key) || (shallow && (key === 'description' || key === 'enum')) || (depth > 0 && key === 'additionalProperties')) continue;
    if (key === 'properties') out[key] = Object.fromEntries(Object.entries(/** @type {Record<string, JsonSchema>} */ (value)).map(([k, v]) => [k, inner(v)]));
    else if (key === 'items') out[key] = inner(/** @type {JsonSchema} */ (value));
    else if (key === 'anyOf') out[key] = /** @type {JsonSchema[]} */ (value).map(inner);
    else out[key] = value;
  }
  return /** @type {JsonSchema} */ (out);
}

/**
 * The tool definitions a server lists (`tools/list`): without `namespace`
 * arguments when pinned to a namespace, only the read tools when
 * `readOnly`, and without the keywords only the argument check reads
 * (lengths, item counts, patterns: a call past them gets a USAGE error
 * naming the bound).
 * @param {Pick<ToolCallOptions, 'namespace' | 'readOnly'>} [options]
 * @returns {ToolDefinition[]}
 */
export function toolDefinitions(options = {}) {
  return fullDefinitions(options).map((t) => ({
    ...t,
    inputSchema: /** @type {ToolDefinition['inputSchema']} */ (listed(t.inputSchema)),
    outputSchema: /** @type {ToolDefinition['outputSchema']} */ (listed(t.outputSchema, true)),
  }));
}

/** Every tool for a server without a pinned namespace (back-compatible export). */
export const memoryTools = toolDefinitions();

/**
 * Problems with `args` for tool `name` under `options` (empty when valid).
 * @param {string} name
 * @param {unknown} args
 * @param {Pick<ToolCallOptions, 'namespace' | 'readOnly'>} [options]
 * @returns {string[]}
 */
export function validateToolArguments(name, args, options = {}) {
  const tool = fullDefinitions(options).find((t) => t.name === name);
  if (!tool) {
    const names = fullDefinitions(options).map((t) => t.name);
    const known = ALL.some((t) => t.name === name);
    return [
      known
        ? `tool "${name}" is not available on this read-only server; available: ${names.join(', ')}`
        : `unknown tool "${name}"; available: ${names.join(', ')}`,
    ];
  }
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return ['arguments must be a JSON object'];
  return check(tool.inputSchema, args, '');
}

/**
 * A JSON Schema check of the subset the definitions use, with messages a
 * model can act on (the SDK's own validation is bypassed: see ./mcp.js).
 * @param {JsonSchema} schema
 * @param {unknown} value
 * @param {string} path
 * @returns {string[]}
 */
function check(schema, value, path) {
  const at = path ? `"${path}"` : 'the arguments';
  if (schema.anyOf) {
    if (schema.anyOf.some((s) => check(s, value, path).length === 0)) return [];
    return [`${at} must be ${schema.anyOf.map(describeType).join(' or ')}`];
  }
  switch (schema.type) {
    case 'string':
      if (typeof value !== 'string') return [`${at} must be a string`];
      if (schema.minLength && value.length < schema.minLength) return [`${at} must not be empty`];
      if (schema.maxLength && value.length > schema.maxLength) return [`${at} is longer than ${schema.maxLength} characters`];
      if (schema.enum && !schema.enum.includes(value)) return [`${at} must be one of ${schema.enum.map((e) => `"${e}"`).join(', ')}`];
      if (schema.pattern && !new RegExp(schema.pattern, 'u').test(value)) return [`${at} must not contain control characters`];
      return [];
    case 'integer':
    case 'number':
      if (schema.type === 'integer' ? !Number.isInteger(value) : !Number.isFinite(value)) return [`${at} must be ${schema.type === 'integer' ? 'an integer' : 'a number'}`];
      if (/** @type {number} */ (value) < (schema.minimum ?? -Infinity) || /** @type {number} */ (value) > (schema.maximum ?? Infinity)) {
        return [`${at} must be between ${schema.minimum} and ${schema.maximum}`];
      }
      return [];
    case 'boolean':
      return typeof value === 'boolean' ? [] : [`${at} must be true or false`];
    case 'array': {
      if (!Array.isArray(value)) return [`${at} must be a list`];
      if (schema.minItems && value.length < schema.minItems) return [`${at} must not be empty`];
      if (schema.maxItems && value.length > schema.maxItems) return [`${at} holds at most ${schema.maxItems} items`];
      const items = schema.items ?? {};
      return value.flatMap((v, i) => check(items, v, `${path}[${i}]`));
    }
    case 'object': {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return [`${at} must be an object`];
      const given = /** @type {Record<string, unknown>} */ (value);
      const properties = schema.properties ?? {};
      const problems = [];
      for (const req of schema.required ?? []) {
        if (given[req] === undefined) problems.push(`"${join(path, req)}" is required`);
      }
      for (const [key, v] of Object.entries(given)) {
        const prop = properties[key];
        if (!prop) {
          problems.push(`unknown argument "${join(path, key)}"; allowed: ${Object.keys(properties).join(', ')}`);
        } else if (v !== undefined) {
          problems.push(...check(prop, v, join(path, key)));
        }
      }
      return problems;
    }
    default:
      return [];
  }
}

const join = (/** @type {string} */ path, /** @type {string} */ key) => (path ? `${path}.${key}` : key);
const describeType = (/** @type {JsonSchema} */ s) => (s.type === 'array' ? `a list of ${s.items?.type}s` : `a ${s.type}`);

/**
 * Runs tool `name` with `args` against `index` (a `Memdex`, or anything with
 * its async-compatible methods). Never throws. Calls on one index run one
 * at a time.
 *
 * options: `namespace` (pin), `readOnly`, `commit` (commit after each write,
 * re-applying it after a `CONFLICT`), `beforeRead` (awaited before read
 * tools, e.g. to reload what another process committed), `now` (clock),
 * `vectorField`.
 * @param {ToolIndex} index
 * @param {string} name
 * @param {Record<string, unknown> | undefined} args
 * @param {ToolCallOptions} [options]
 * @returns {Promise<ToolResult>}
 */
export function handleToolCall(index, name, args, options = {}) {
  options = withIndex(index, options);
  return serialize(index, async () => {
    const problems = validateToolArguments(name, args ?? {}, options);
    if (problems.length) {
      return failure('USAGE', `Invalid arguments for ${name}: ${problems.join('; ')}.`, { problems });
    }
    // Valid: `name` is a tool and `args` fit its input schema.
    const tool = /** @type {ToolName} */ (name);
    try {
      return await runTool(index, tool, args ?? {}, options);
    } catch (thrown) {
      const err = /** @type {{ toolResult?: ToolResult, code?: unknown, message?: string, data?: { field?: unknown } } | null | undefined} */ (thrown);
      if (err?.toolResult) return err.toolResult;
      const code = typeof err?.code === 'string' ? err.code : 'INTERNAL';
      const message = (err?.message ?? String(thrown)).split(SEP).join('/');
      // Stored ids hold the namespace separator; show it as messages do.
      const data = err?.data && JSON.parse(JSON.stringify(err.data).split(SEP).join('/'));
      return failure(code, `${name} failed: ${message}${advice(code, err?.data?.field, tool, options)}`, { data });
    }
  });
}

/**
 * The next step for an error, from its code and the field its structured
 * `data` names (never from the message text). Engine messages name fields
 * and ids the caller gave, never other namespaces' (reads are filtered by
 * namespace before they reach the engine); `SEP` is never shown.
 * @param {string} code
 * @param {unknown} field `err.data.field` of SCHEMA errors
 * @param {ToolName} tool
 * @param {ToolCallOptions} options
 */
function advice(code, field, tool, options) {
  if (code === 'SCHEMA') {
    if (field === 'tags' || field === 'links') {
      return '. This memory index was created before tags and links existed; leave them out, or use a new --dir.';
    }
    if (field === 'timestamp') {
      // Dates are the engine's to judge (one rule for every entrance); say
      // what the tools accept besides.
      return tool === 'memory_store' || tool === 'memory_update'
        ? '. Give timestamp as an ISO-8601 date or time like 2026-05-01T09:30:00Z, or leave it out for now.'
        : '. since and until take ISO dates or times (2026-05-01, 2026-05-01T09:30:00Z) or a span back from now (30m, 12h, 7d, 2w).';
    }
    if (field === 'vector' || (field !== undefined && field === options.vectorField)) {
      return '. vector needs the memory index to have a vector field, and as many numbers as its dimensions; without one, leave vector out.';
    }
    return '';
  }
  if (code === 'CONFLICT') return '. Another process kept writing to this memory; try the call again.';
  if (code === 'STORAGE') return '. Nothing was saved; try again, and check the memory directory if it persists.';
  if (code === 'LOCKED') return '. Nothing was saved; try again in a few seconds.';
  return '';
}

/** @type {WeakMap<object, Promise<unknown>>} each index's last queued tool call */
const queues = new WeakMap();

/**
 * Resolves when every tool call already made on `index` has finished.
 * @param {object} index
 * @returns {Promise<void>}
 */
export function idle(index) {
  return /** @type {Promise<void>} */ (queues.get(index) ?? Promise.resolve());
}

/**
 * @template T
 * @param {object} index
 * @param {() => Promise<T>} fn
 * @returns {Promise<T>}
 */
function serialize(index, fn) {
  const prev = queues.get(index) ?? Promise.resolve();
  const run = prev.then(fn, fn);
  queues.set(
    index,
    run.catch(() => {}),
  );
  return run;
}
