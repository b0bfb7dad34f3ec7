// memdex/tools: agent tool definitions (MCP-compatible: name, description,
// inputSchema as JSON Schema) and a dispatcher that runs them against an
// index. `handleToolCall` never throws: bad arguments and engine errors come
// back as `{ isError: true }` results with a message the model can act on.

const text = (description, extra = {}) => ({ type: 'string', description, ...extra });

/** @type {import('./tools.d.ts').ToolDefinition[]} */
export const memoryTools = [
  {
    name: 'memory_search',
    title: 'Search memories',
    description:
      'Full-text search (BM25) over stored memories: decisions, rules, observations, notes. ' +
      'Use several distinct words; stemming makes "deploying" match "deploy". ' +
      'Supports "exact phrases", prefix*, -exclude, +require. Results are ranked and bounded by `limit` and `maxChars`.',
    inputSchema: {
      type: 'object',
      properties: {
        query: text('What to look for, in natural words or query syntax.', { minLength: 1, maxLength: 1000 }),
        namespace: text('Only search memories of this namespace (agent, tenant, repo:branch).'),
        kind: text('Only memories of this kind, e.g. "rule", "decision", "observation".'),
        limit: { type: 'integer', minimum: 1, maximum: 50, default: 5, description: 'Maximum number of results.' },
        mode: {
          type: 'string',
          enum: ['or', 'and', 'fallback'],
          default: 'fallback',
          description: '"and": all words must match; "or": any word; "fallback": "and", then "or" if nothing matches.',
        },
        maxChars: {
          type: 'integer',
          minimum: 200,
          maximum: 20000,
          default: 4000,
          description: 'Character budget for the returned text; longer results are truncated and say so.',
        },
      },
      required: ['query'],
      additionalProperties: false,
    },
  },
  {
    name: 'memory_store',
    title: 'Store a memory',
    description:
      'Stores a memory so it can be found later by content. Give it a short title and the full text. ' +
      'Storing with an existing id replaces that memory.',
    inputSchema: {
      type: 'object',
      properties: {
        text: text('The memory itself.', { minLength: 1, maxLength: 100000 }),
        title: text('A short summary line.', { maxLength: 500 }),
        kind: text('Category, e.g. "rule", "decision", "observation", "note".', { maxLength: 100 }),
        namespace: text('Namespace to store it in (agent, tenant, repo:branch).', { maxLength: 200 }),
        id: text('Id to store under; generated when omitted. An existing id is replaced.', { minLength: 1, maxLength: 200 }),
      },
      required: ['text'],
      additionalProperties: false,
    },
  },
  {
    name: 'memory_get',
    title: 'Get a memory',
    description: 'Returns one stored memory by its id (ids come from memory_search or memory_store).',
    inputSchema: {
      type: 'object',
      properties: { id: text('The memory id.', { minLength: 1 }) },
      required: ['id'],
      additionalProperties: false,
    },
  },
  {
    name: 'memory_delete',
    title: 'Delete a memory',
    description: 'Deletes one stored memory by its id. Use when a memory is wrong or obsolete.',
    inputSchema: {
      type: 'object',
      properties: { id: text('The memory id.', { minLength: 1 }) },
      required: ['id'],
      additionalProperties: false,
    },
  },
];

const BY_NAME = new Map(memoryTools.map((t) => [t.name, t]));

/** Checks `args` against a tool's (flat) input schema; returns a list of problems. */
export function validateToolArguments(name, args) {
  const tool = BY_NAME.get(name);
  if (!tool) return [`unknown tool "${name}"; available: ${memoryTools.map((t) => t.name).join(', ')}`];
  const schema = tool.inputSchema;
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return ['arguments must be a JSON object'];
  const problems = [];
  for (const req of schema.required ?? []) {
    if (args[req] === undefined) problems.push(`"${req}" is required`);
  }
  for (const [key, value] of Object.entries(args)) {
    const prop = schema.properties[key];
    if (!prop) {
      problems.push(`unknown argument "${key}"; allowed: ${Object.keys(schema.properties).join(', ')}`);
      continue;
    }
    if (value === undefined) continue;
    if (prop.type === 'string') {
      if (typeof value !== 'string') problems.push(`"${key}" must be a string`);
      else if (prop.minLength && value.length < prop.minLength) problems.push(`"${key}" must not be empty`);
      else if (prop.maxLength && value.length > prop.maxLength) problems.push(`"${key}" is longer than ${prop.maxLength} characters`);
      else if (prop.enum && !prop.enum.includes(value)) problems.push(`"${key}" must be one of ${prop.enum.map((e) => `"${e}"`).join(', ')}`);
    } else if (prop.type === 'integer') {
      if (!Number.isInteger(value)) problems.push(`"${key}" must be an integer`);
      else if (value < prop.minimum || value > prop.maximum) problems.push(`"${key}" must be between ${prop.minimum} and ${prop.maximum}`);
    }
  }
  return problems;
}

const result = (message, structuredContent, isError = false) => ({
  content: [{ type: 'text', text: message }],
  structuredContent,
  isError,
});
const failure = (message, extra = {}) => result(message, { error: message, ...extra }, true);

let counter = 0;
const newId = () =>
  `mem-${Date.now().toString(36)}-${(counter++).toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

function clip(s, n) {
  return s.length <= n ? s : `${s.slice(0, Math.max(0, n - 1))}…`;
}

/**
 * Runs tool `name` with `args` against `index` (a `Memdex` or the worker
 * version). `options.namespace` pins every call to one namespace (tenant
 * isolation: the model cannot read or write elsewhere); `options.commit`
 * commits after writes.
 */
export async function handleToolCall(index, name, args, options = {}) {
  const problems = validateToolArguments(name, args ?? {});
  if (problems.length) {
    return failure(`Invalid arguments for ${name}: ${problems.join('; ')}.`, { problems });
  }
  args = args ?? {};
  const pinned = options.namespace;
  if (pinned !== undefined && args.namespace !== undefined && args.namespace !== pinned) {
    return failure(`Invalid arguments for ${name}: namespace "${args.namespace}" is not accessible here; omit it.`);
  }
  const namespace = pinned ?? args.namespace;
  const inScope = (doc) => doc && (pinned === undefined || doc.namespace === pinned);
  try {
    switch (name) {
      case 'memory_search':
        return await search(index, args, namespace, options);
      case 'memory_store': {
        const doc = { id: args.id ?? newId(), text: args.text, timestamp: new Date().toISOString() };
        if (args.title !== undefined) doc.title = args.title;
        if (args.kind !== undefined) doc.kind = args.kind;
        if (namespace !== undefined) doc.namespace = namespace;
        if (pinned !== undefined && args.id !== undefined) {
          const existing = await index.get(args.id);
          if (existing && !inScope(existing)) return failure(`Cannot store: id "${args.id}" is taken in another namespace; omit id.`);
        }
        const replaced = (await index.get(doc.id)) !== undefined;
        await index.add(doc);
        if (options.commit) await index.commit();
        return result(`${replaced ? 'Replaced' : 'Stored'} memory "${doc.id}".`, { id: doc.id, stored: true, replaced });
      }
      case 'memory_get': {
        const doc = await index.get(args.id);
        if (!inScope(doc)) return failure(`No memory with id "${args.id}".`, { id: args.id, found: false });
        return result(formatDoc(doc), { id: args.id, found: true, memory: doc });
      }
      case 'memory_delete': {
        const doc = await index.get(args.id);
        if (!inScope(doc)) return failure(`No memory with id "${args.id}"; nothing deleted.`, { id: args.id, deleted: false });
        await index.remove(args.id);
        if (options.commit) await index.commit();
        return result(`Deleted memory "${args.id}".`, { id: args.id, deleted: true });
      }
      default:
        return failure(`Unknown tool "${name}".`);
    }
  } catch (err) {
    const code = err?.code ?? 'INTERNAL';
    return failure(`${name} failed (${code}): ${err?.message ?? err}`, { code });
  }
}

function formatDoc(doc) {
  const head = [doc.title ? `# ${doc.title}` : null, `id: ${doc.id}`];
  if (doc.kind) head.push(`kind: ${doc.kind}`);
  if (doc.namespace) head.push(`namespace: ${doc.namespace}`);
  if (doc.timestamp) head.push(`timestamp: ${doc.timestamp}`);
  return `${head.filter(Boolean).join('\n')}\n\n${doc.text ?? ''}`;
}

async function search(index, args, namespace, options) {
  const limit = args.limit ?? 5;
  const maxChars = Math.min(args.maxChars ?? options.maxChars ?? 4000, options.maxChars ?? 20000);
  const filter = {};
  if (namespace !== undefined) filter.namespace = namespace;
  if (args.kind !== undefined) filter.kind = args.kind;
  const { hits, mode } = await index.search(args.query, {
    limit,
    mode: args.mode ?? 'fallback',
    filter: Object.keys(filter).length ? filter : undefined,
  });
  if (hits.length === 0) {
    return result(`No memories match "${args.query}".`, { query: args.query, mode, hits: [], returned: 0, truncated: false, omitted: 0 });
  }
  const out = [];
  let used = 0;
  let truncated = false;
  let omitted = 0;
  const lines = [];
  for (const [i, hit] of hits.entries()) {
    const f = hit.fields ?? {};
    const title = String(f.title ?? '');
    const body = String(f.text ?? '');
    const meta = [f.kind, hit.namespace].filter(Boolean).join(', ');
    const header = `${i + 1}. [${hit.id}] ${title}${meta ? ` (${meta})` : ''} score=${hit.score.toFixed(3)}`;
    const remaining = maxChars - used - header.length - 4;
    if (remaining < 40 && out.length > 0) {
      omitted = hits.length - i;
      truncated = true;
      break;
    }
    const room = Math.max(40, remaining);
    const clipped = body.length > room;
    const shown = clip(body, room);
    if (clipped) truncated = true;
    lines.push(`${header}\n   ${shown}`);
    used += header.length + shown.length + 5;
    out.push({ id: hit.id, score: hit.score, title, text: shown, kind: f.kind, namespace: hit.namespace, timestamp: f.timestamp, textTruncated: clipped });
  }
  let message = `${out.length} memor${out.length === 1 ? 'y' : 'ies'} for "${args.query}" (${mode} mode):\n\n${lines.join('\n')}`;
  if (truncated) {
    message += `\n\n[truncated to the ${maxChars}-character budget${omitted ? `; ${omitted} more result${omitted === 1 ? '' : 's'} omitted` : ''}; use memory_get with an id for the full text]`;
  }
  return result(message, { query: args.query, mode, hits: out, returned: out.length, truncated, omitted, maxChars });
}
