// The memory tools' MCP definitions: name, title, a description written for
// a model, the JSON Schema of the arguments (also what ./tools.js checks
// calls against), the schema of `structuredContent`, and annotations.
// `toolDefinitions` (./tools.js) adapts them to a server's options.
//
// Every tool list an agent loads costs context: descriptions say what a
// model needs to choose and call a tool, no more (the whole list stays
// within 3,000 tokens, tests/js/mcp-tokens.test.mjs); the details are in
// the package README ("MCP tools").

/** @typedef {import('./tools.js').JsonSchema} JsonSchema */
/** @typedef {import('./tools.js').ToolDefinition} ToolDefinition */

/**
 * Schemas listed in a shorter form than they are checked with (the check
 * takes the full one; `toolDefinitions` lists this one).
 * @type {WeakMap<JsonSchema, JsonSchema>}
 */
export const LISTED_AS = new WeakMap();

/**
 * @param {string} description
 * @param {JsonSchema} [extra]
 * @returns {JsonSchema}
 */
const str = (description, extra = {}) => ({ type: 'string', description, ...extra });
/**
 * @param {Record<string, JsonSchema>} properties
 * @param {string[]} [required]
 * @returns {JsonSchema & { type: 'object' }}
 */
const object = (properties, required = []) => (required.length ? { type: 'object', properties, required } : { type: 'object', properties });
/**
 * @param {number} minimum
 * @param {number} maximum
 * @param {number | undefined} fallback the default
 * @param {string} [description]
 * @returns {JsonSchema}
 */
const int = (minimum, maximum, fallback, description) => ({
  type: 'integer',
  minimum,
  maximum,
  ...(fallback === undefined ? {} : { default: fallback }),
  ...(description ? { description } : {}),
});
/** @type {JsonSchema} */
const STRING = { type: 'string' };
/** @type {JsonSchema} tool ids: no control characters (U+001F separates namespaces in engine ids) */
const ID = { type: 'string', minLength: 1, maxLength: 200, pattern: '^[^\\u0000-\\u001f]+$' };
/** @type {JsonSchema} */
const NAME = { type: 'string', minLength: 1, maxLength: 100 };
/** @type {JsonSchema} */
const LINK = object({ type: NAME, to: ID }, ['type', 'to']);
LINK.additionalProperties = false;
/** @type {JsonSchema} */
const TIME = str('ISO date/time, or a span back from now: 30m, 12h, 7d, 2w.', { minLength: 1, maxLength: 40 });
/** @type {JsonSchema} */
const VECTOR = { type: 'array', items: { type: 'number' }, minItems: 1, maxItems: 4096 };

// Filters shared by search, list and delete. `namespace` is added when the
// server is not pinned to one.
/** @type {Record<string, JsonSchema>} */
const FILTERS = {
  kind: { description: 'Only these kinds.', anyOf: [NAME, { type: 'array', items: NAME, minItems: 1, maxItems: 20 }] },
  tags: { description: 'Any of these tags.', type: 'array', items: NAME, minItems: 1, maxItems: 20 },
  since: TIME,
  until: { ...TIME, description: 'Before this (a date alone includes that day).' },
};
/** The filters described once, in memory_search. */
const FILTERS_BARE = Object.fromEntries(Object.entries(FILTERS).map(([k, { description: _, ...schema }]) => [k, schema]));
// Link traversal shared by memory_search (expand) and memory_related.
/** @type {Record<string, JsonSchema>} */
const TRAVERSAL = {
  hops: int(1, 3, 1),
  types: { type: 'array', items: NAME, minItems: 1, maxItems: 20, description: 'Link types to follow (default all).' },
  direction: { type: 'string', enum: ['out', 'in', 'both'], default: 'out', description: 'out: what it links to; in: what links to it.' },
};
/** @type {JsonSchema} */
const VIA = object({ from: STRING, type: STRING, hops: { type: 'integer' } }, ['from', 'type', 'hops']);
export const NAMESPACE_ARG = str('Namespace (give it with ids); search, list, delete by filter take a prefix*.', {
  minLength: 1,
  maxLength: 200,
});

// Fields of a memory as the tools return it.
/** @type {Record<string, JsonSchema>} */
const MEMORY_OUT = {
  id: STRING,
  namespace: STRING,
  title: STRING,
  kind: STRING,
  tags: { type: 'array', items: STRING },
  timestamp: STRING,
  links: { type: 'array', items: LINK },
};
/** @type {JsonSchema} */
const MEMORY = object({ ...MEMORY_OUT, text: STRING }, ['id', 'text']);
/** @type {JsonSchema} */
const PREVIEWED = object({ ...MEMORY_OUT, preview: STRING }, ['id', 'preview']);

// What a stored memory may carry (memory_store, memory_update).
/** @type {Record<string, JsonSchema>} */
const MEMORY_FIELDS = {
  title: str('Short, specific.', { maxLength: 500 }),
  text: str('The memory: what, why, identifiers involved.', { minLength: 1, maxLength: 100000 }),
  kind: { ...NAME, description: 'e.g. decision, rule, observation, note.' },
  tags: { type: 'array', items: NAME, maxItems: 50 },
  timestamp: str('ISO-8601; default now.', { minLength: 1, maxLength: 40 }),
  links: { type: 'array', items: LINK, maxItems: 50, description: 'Typed edges to other memories by id.' },
  vector: { ...VECTOR, description: 'Embedding (needs a vector field).' },
};

/** The memory fields without their descriptions (for the items of `memories`, described once above them). */
const MEMORY_ITEM = Object.fromEntries(Object.entries(MEMORY_FIELDS).map(([k, { description: _, ...schema }]) => [k, schema]));

/** @type {JsonSchema} one memory of memory_store's `memories`, listed as "the fields above" */
const MEMORIES_ITEM = { type: 'object', properties: { id: ID, ...MEMORY_ITEM }, required: ['text'], additionalProperties: false };
LISTED_AS.set(MEMORIES_ITEM, { type: 'object', description: 'The fields above.', properties: { text: STRING }, required: ['text'] });

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** @type {ToolDefinition[]} every tool, in full */
export const ALL = [
  {
    name: 'memory_search',
    title: 'Search memories',
    description:
      'Search memories (decisions, rules, observations, notes) by content, best first: before answering about past work, and ' +
      'before storing what may exist. Give distinctive words or identifiers; word forms and typos match; "phrases", prefix*, ' +
      '-exclude, +require work. Hits carry snippets (full text: memory_get). To browse without words: memory_list.',
    inputSchema: {
      type: 'object',
      properties: {
        query: str('Words, identifiers or query syntax; empty with a vector: a vector search.', { maxLength: 1000 }),
        ...FILTERS,
        mode: { type: 'string', enum: ['or', 'and', 'fallback'], default: 'or', description: 'or: any word; and: all words; fallback: and, else or.' },
        order: { type: 'string', enum: ['relevance', 'newest', 'oldest'], default: 'relevance' },
        limit: int(1, 50, 8),
        maxChars: int(200, 20000, 4000, 'Answer size budget.'),
        budgetTokens: int(200, 5000, undefined, 'Budget in tokens (chars/4), instead of maxChars.'),
        expand: { ...object(TRAVERSAL), additionalProperties: false, description: 'Add memories linked to the hits, e.g. {"hops":1}.' },
        vector: { ...VECTOR, description: 'Query embedding: hybrid search (needs a vector field).' },
        semantic: { type: 'string', enum: ['hybrid', 'vector', 'off'], description: 'By meaning (server embedder): hybrid is its default.' },
      },
      required: ['query'],
      additionalProperties: false,
    },
    outputSchema: object(
      {
        query: STRING,
        mode: { type: 'string', enum: ['and', 'or'] },
        order: { type: 'string', enum: ['relevance', 'newest', 'oldest'] },
        hits: {
          type: 'array',
          items: object(
            { ...MEMORY_OUT, score: { type: 'number' }, snippet: STRING, snippetTruncated: { type: 'boolean' }, via: VIA },
            ['id', 'score', 'snippet', 'snippetTruncated'],
          ),
        },
        returned: { type: 'integer' },
        total: { type: 'integer' },
        totalExact: { type: 'boolean' },
        truncated: { type: 'boolean' },
        omitted: { type: 'integer' },
        maxChars: { type: 'integer' },
        usedTokens: { type: 'integer' },
        semantic: { type: 'string', enum: ['hybrid', 'vector', 'lexical'] },
      },
      ['query', 'mode', 'order', 'hits', 'returned', 'truncated', 'omitted', 'maxChars'],
    ),
    annotations: { ...READ },
  },
  {
    name: 'memory_list',
    title: 'List memories',
    description:
      'List memories without search words, newest first (or oldest, or by kind), filtered by kind, tags and time (since: "7d" is the last week), ' +
      'e.g. to review recent work or every rule. Returns previews and total; for the next page pass nextCursor as cursor with the same filters.',
    inputSchema: {
      type: 'object',
      properties: {
        ...FILTERS_BARE,
        sortBy: { type: 'string', enum: ['timestamp', 'kind'], default: 'timestamp' },
        order: { type: 'string', enum: ['desc', 'asc'] },
        limit: int(1, 100, 20),
        cursor: { ...NAME, maxLength: 200 },
        maxChars: int(200, 20000, 4000),
      },
      additionalProperties: false,
    },
    outputSchema: object(
      {
        memories: { type: 'array', items: PREVIEWED },
        returned: { type: 'integer' },
        total: { type: 'integer' },
        nextCursor: STRING,
        sortBy: STRING,
        order: { type: 'string', enum: ['desc', 'asc'] },
        truncated: { type: 'boolean' },
      },
      ['memories', 'returned', 'total', 'sortBy', 'order', 'truncated'],
    ),
    annotations: { ...READ },
  },
  {
    name: 'memory_get',
    title: 'Get memories',
    description:
      'Fetch whole memories by id (or ids): title, full text, kind, tags, timestamp, links; for when a search snippet or list preview ' +
      'is not enough. Ids that do not exist are listed in missing.',
    inputSchema: {
      type: 'object',
      properties: { id: ID, ids: { type: 'array', items: ID, minItems: 1, maxItems: 50 } },
      additionalProperties: false,
    },
    outputSchema: object({ memories: { type: 'array', items: MEMORY }, missing: { type: 'array', items: STRING } }, ['memories', 'missing']),
    annotations: { ...READ },
  },
  {
    name: 'memory_related',
    title: 'Related memories',
    description:
      'Memories linked to one memory, nearest first, up to 3 links away: what it depends on or supersedes (direction out), what ' +
      'links to it (in), or both; e.g. "what depends on X", "what replaced X". Each says how it was reached (via).',
    inputSchema: {
      type: 'object',
      properties: { id: ID, ...TRAVERSAL, limit: int(1, 50, 10) },
      required: ['id'],
      additionalProperties: false,
    },
    outputSchema: object(
      { id: STRING, memories: { type: 'array', items: object({ ...PREVIEWED.properties, via: VIA }, ['id', 'preview', 'via']) }, returned: { type: 'integer' } },
      ['id', 'memories', 'returned'],
    ),
    annotations: { ...READ },
  },
  {
    name: 'memory_store',
    title: 'Store memories',
    description:
      'Save a memory (or several in memories) to find later by content: title, full text (what, why, identifiers), kind, tags. ' +
      'Returns the ids (generated when omitted). An existing id is an error unless replace is true (memory_update changes fields). ' +
      'A decision replacing an older one links to it: [{"type":"SUPERSEDES","to":"<old id>"}].',
    inputSchema: {
      type: 'object',
      properties: {
        id: ID,
        ...MEMORY_FIELDS,
        memories: {
          type: 'array',
          minItems: 1,
          maxItems: 50,
          items: MEMORIES_ITEM,
        },
        replace: { type: 'boolean', default: false },
      },
      additionalProperties: false,
    },
    outputSchema: object(
      { stored: { type: 'array', items: object({ id: STRING, replaced: { type: 'boolean' } }, ['id', 'replaced']) }, count: { type: 'integer' } },
      ['stored', 'count'],
    ),
    annotations: {
      readOnlyHint: false,
      // Additive unless `replace: true` is passed explicitly.
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false,
    },
  },
  {
    name: 'memory_update',
    title: 'Update a memory',
    description:
      'Change some fields of a memory by id: title, text, kind, tags, timestamp, links, vector. Fields left out are kept, its vector ' +
      'too (tags and links are replaced whole). Use it to correct or extend a memory, or mark a decision superseded.',
    inputSchema: {
      type: 'object',
      properties: { id: ID, ...MEMORY_ITEM },
      required: ['id'],
      additionalProperties: false,
    },
    outputSchema: object({ memory: MEMORY, changed: { type: 'array', items: STRING } }, ['memory', 'changed']),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  },
  {
    name: 'memory_delete',
    title: 'Delete memories',
    description:
      'Delete memories permanently, by ids or by a filter (kind, tags, since/until). A filter without confirm only previews ' +
      'how many match; call again with confirm: true. To correct a memory, prefer memory_update.',
    inputSchema: {
      type: 'object',
      properties: {
        id: ID,
        ids: { type: 'array', items: ID, minItems: 1, maxItems: 100 },
        ...FILTERS_BARE,
        confirm: { type: 'boolean', default: false },
      },
      additionalProperties: false,
    },
    outputSchema: object(
      {
        deleted: { type: 'integer' },
        ids: { type: 'array', items: STRING },
        missing: { type: 'array', items: STRING },
        matched: { type: 'integer' },
        confirmed: { type: 'boolean' },
      },
      ['deleted', 'ids', 'confirmed'],
    ),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  },
];
