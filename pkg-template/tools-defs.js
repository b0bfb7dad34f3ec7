// The memory tools' MCP definitions: name, title, a description written for
// a model, the JSON Schema of the arguments (also what ./tools.js checks
// calls against), the schema of `structuredContent`, and annotations.
// `toolDefinitions` (./tools.js) adapts them to a server's options.

/** @typedef {import('./tools.js').JsonSchema} JsonSchema */
/** @typedef {import('./tools.js').ToolDefinition} ToolDefinition */

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
const object = (properties, required = []) => ({ type: 'object', properties, required });
/** @type {JsonSchema} */
const ID = { type: 'string', minLength: 1, maxLength: 200, pattern: `^[^\\u0000-\\u001f]+$` };
/** @type {JsonSchema} */
const KIND = { type: 'string', minLength: 1, maxLength: 100 };
/** @type {JsonSchema} */
const TAG = { type: 'string', minLength: 1, maxLength: 100 };
/** @type {JsonSchema} */
const LINK = {
  type: 'object',
  properties: {
    type: str('Relation, e.g. "SUPERSEDES", "DEPENDS_ON", "RELATES_TO".', { minLength: 1, maxLength: 100 }),
    to: { ...ID, description: 'Id of the memory it points to.' },
  },
  required: ['type', 'to'],
  additionalProperties: false,
};
const TIME_HELP = 'an ISO date or time (2026-05-01, 2026-05-01T09:30:00Z) or a span back from now (30m, 12h, 7d, 2w)';

// Filters shared by search, list and delete. `namespace` is added when the
// server is not pinned to one.
/** @type {Record<string, JsonSchema>} */
const FILTERS = {
  kind: {
    description: 'Only memories of this kind, or of any of these kinds, e.g. "decision" or ["rule", "decision"].',
    anyOf: [KIND, { type: 'array', items: KIND, minItems: 1, maxItems: 20 }],
  },
  tags: {
    description: 'Only memories carrying at least one of these tags.',
    type: 'array',
    items: TAG,
    minItems: 1,
    maxItems: 20,
  },
  since: str(`Only memories with a timestamp at or after this: ${TIME_HELP}.`, { minLength: 1, maxLength: 40 }),
  until: str(`Only memories with a timestamp before this (a date alone includes that whole day): ${TIME_HELP}.`, {
    minLength: 1,
    maxLength: 40,
  }),
};
// Link traversal shared by memory_search (expand) and memory_related.
/** @type {JsonSchema} */
/** @type {JsonSchema} */
const HOPS = { type: 'integer', minimum: 1, maximum: 3, default: 1, description: 'How many links away to go (1 = direct links only).' };
/** @type {JsonSchema} */
const LINK_TYPES = {
  type: 'array',
  items: { type: 'string', minLength: 1, maxLength: 100 },
  minItems: 1,
  maxItems: 20,
  description: 'Only follow links of these types, e.g. ["DEPENDS_ON"] (default: every type).',
};
/** @type {JsonSchema} */
const DIRECTION = {
  type: 'string',
  enum: ['out', 'in', 'both'],
  default: 'out',
  description: '"out": what the memory links to (what it depends on, supersedes); "in": memories that link to it (what depends on it); "both".',
};
const VIA = object(
  {
    from: { type: 'string', description: 'Id of the memory the link path starts from.' },
    type: { type: 'string', description: 'Type of the last link followed.' },
    hops: { type: 'integer' },
  },
  ['from', 'type', 'hops'],
);
export const NAMESPACE_ARG = str(
  'Namespace (agent, tenant, project) the memories belong to. Ids are unique within a namespace: pass the namespace shown with a memory along with its id. Search, list and delete by filter also take a prefix ending in * ("repo:*": every namespace starting with "repo:").',
  { minLength: 1, maxLength: 200 },
);

// Fields of a memory as the tools return it.
/** @type {Record<string, JsonSchema>} */
const MEMORY_OUT = {
  id: { type: 'string' },
  namespace: { type: 'string' },
  title: { type: 'string' },
  kind: { type: 'string' },
  tags: { type: 'array', items: { type: 'string' } },
  timestamp: { type: 'string', description: 'ISO-8601 time of the memory.' },
  links: { type: 'array', items: LINK },
};
/** @type {JsonSchema} */
const MEMORY = {
  type: 'object',
  properties: { ...MEMORY_OUT, text: { type: 'string' } },
  required: ['id', 'text'],
};

// What a stored memory may carry (memory_store, memory_update).
/** @type {Record<string, JsonSchema>} */
const MEMORY_FIELDS = {
  title: str('A short, specific summary line (shown in search results).', { maxLength: 500 }),
  text: str('The memory itself: what, why, and the identifiers involved (file paths, function names, versions).', {
    minLength: 1,
    maxLength: 100000,
  }),
  kind: { ...KIND, description: 'Category, e.g. "decision", "rule", "observation", "note", "preference".' },
  tags: { type: 'array', items: TAG, maxItems: 50, description: 'Labels to filter by later, e.g. ["billing", "database"].' },
  timestamp: str('When it happened or was decided, ISO-8601 (e.g. 2026-05-01T09:30:00Z); defaults to now.', {
    minLength: 1,
    maxLength: 40,
  }),
  links: {
    type: 'array',
    items: LINK,
    maxItems: 50,
    description: 'Edges to other memories by id, e.g. [{ "type": "SUPERSEDES", "to": "mem-123" }] for a decision that replaces an older one.',
  },
};

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** @type {ToolDefinition[]} every tool, in full */
export const ALL = [
  {
    name: 'memory_search',
    title: 'Search memories',
    description:
      'Search stored memories (decisions, rules, observations, notes) by content; best matches first. ' +
      'Use it before answering questions about past work, decisions or preferences, and before storing something that may already exist. ' +
      'Write several distinctive words or identifiers (e.g. getUserById, billing-service, v1.2.3); word forms and misspellings match ("deploying" finds "deploy", "postgress" finds "postgres"); ' +
      '"quoted phrases", prefix*, -exclude and +require also work. Narrow with kind, tags and since/until; order "newest" ranks matches by time instead. ' +
      'expand: { hops: 1 } also returns the memories linked to the hits (what they depend on, supersede, ...), marked with via; ' +
      'budgetTokens caps the answer in tokens instead of maxChars. ' +
      'Each hit has id, title, kind, tags, timestamp, score and a snippet around the matched words; the answer fits in maxChars characters ' +
      'and says when it was cut: get full texts with memory_get. To browse without search words (e.g. the latest memories), use memory_list.',
    inputSchema: {
      type: 'object',
      properties: {
        query: str('What to look for: distinctive words, identifiers or query syntax.', { minLength: 1, maxLength: 1000 }),
        ...FILTERS,
        mode: {
          type: 'string',
          enum: ['or', 'and', 'fallback'],
          default: 'or',
          description:
            '"or" (default, best for questions in plain language): any word may match and memories matching more and rarer words rank higher; ' +
            '"and": every word must match (precise lookups of identifiers); "fallback": "and", then "or" when nothing matches all words.',
        },
        order: {
          type: 'string',
          enum: ['relevance', 'newest', 'oldest'],
          default: 'relevance',
          description: 'Order of the matches: by relevance (default) or by timestamp.',
        },
        limit: { type: 'integer', minimum: 1, maximum: 50, default: 8, description: 'Maximum number of hits.' },
        maxChars: {
          type: 'integer',
          minimum: 200,
          maximum: 20000,
          default: 4000,
          description: 'Character budget of the answer; snippets are sized to fit and hits beyond it are omitted (stated in the answer).',
        },
        budgetTokens: {
          type: 'integer',
          minimum: 200,
          maximum: 5000,
          description:
            'Token budget of the answer instead of maxChars (tokens counted as characters / 4, rounded up): the answer never exceeds it; usedTokens says what it took.',
        },
        expand: {
          ...object({ hops: HOPS, types: LINK_TYPES, direction: DIRECTION }),
          additionalProperties: false,
          description: 'Also return the memories linked to the hits, scored score / (1 + hops), each with via. E.g. { "hops": 2, "types": ["DEPENDS_ON"] }.',
        },
      },
      required: ['query'],
      additionalProperties: false,
    },
    outputSchema: object(
      {
        query: { type: 'string' },
        mode: { type: 'string', enum: ['and', 'or'], description: 'How the words were combined.' },
        order: { type: 'string', enum: ['relevance', 'newest', 'oldest'] },
        hits: {
          type: 'array',
          items: object(
            {
              ...MEMORY_OUT,
              score: { type: 'number', description: 'Relevance (BM25F); higher is better.' },
              snippet: { type: 'string', description: 'The best passage of the text (plain text; … marks a cut).' },
              snippetTruncated: { type: 'boolean', description: 'The snippet is only part of the text.' },
              via: { ...VIA, description: 'Present when the memory was added by expand: the link path that reached it.' },
            },
            ['id', 'score', 'snippet', 'snippetTruncated'],
          ),
        },
        returned: { type: 'integer' },
        total: { type: 'integer', description: 'All matches (known when ordered by time).' },
        truncated: { type: 'boolean', description: 'Snippets were shortened or hits omitted to fit maxChars.' },
        omitted: { type: 'integer', description: 'Hits left out to fit maxChars.' },
        maxChars: { type: 'integer' },
        usedTokens: { type: 'integer', description: 'With budgetTokens: tokens (characters / 4) the answer text takes.' },
      },
      ['query', 'mode', 'order', 'hits', 'returned', 'truncated', 'omitted', 'maxChars'],
    ),
    annotations: { title: 'Search memories', ...READ },
  },
  {
    name: 'memory_list',
    title: 'List memories',
    description:
      'List memories without search words, newest first by default (or oldest first, or by kind). ' +
      'Filter by kind, tags and time (since/until; since: "7d" is the last week). Use it to review recent work, see every rule, ' +
      'or recall what happened in a period. Returns id, title, kind, tags, timestamp and a short preview of each, and total (how many match). ' +
      'When nextCursor is present, pass it as cursor (with the same filters) for the next page.',
    inputSchema: {
      type: 'object',
      properties: {
        ...FILTERS,
        sortBy: { type: 'string', enum: ['timestamp', 'kind'], default: 'timestamp', description: 'Field to order by.' },
        order: {
          type: 'string',
          enum: ['desc', 'asc'],
          description: '"desc" (default for timestamp: newest first) or "asc" (default for kind: a to z).',
        },
        limit: { type: 'integer', minimum: 1, maximum: 100, default: 20, description: 'Maximum number of memories.' },
        cursor: str('nextCursor of the previous page.', { minLength: 1, maxLength: 200 }),
        maxChars: {
          type: 'integer',
          minimum: 200,
          maximum: 20000,
          default: 4000,
          description: 'Character budget of the answer; memories beyond it move to the next page.',
        },
      },
      additionalProperties: false,
    },
    outputSchema: object(
      {
        memories: {
          type: 'array',
          items: object({ ...MEMORY_OUT, preview: { type: 'string', description: 'Start of the text (… when cut).' } }, ['id', 'preview']),
        },
        returned: { type: 'integer' },
        total: { type: 'integer', description: 'Memories matching the filters, all pages.' },
        nextCursor: { type: 'string', description: 'Pass as cursor for the next page; absent on the last page.' },
        sortBy: { type: 'string' },
        order: { type: 'string', enum: ['desc', 'asc'] },
        truncated: { type: 'boolean', description: 'The page was cut short to fit maxChars.' },
      },
      ['memories', 'returned', 'total', 'sortBy', 'order', 'truncated'],
    ),
    annotations: { title: 'List memories', ...READ },
  },
  {
    name: 'memory_get',
    title: 'Get memories',
    description:
      'Fetch full memories by id (id, or several in ids): title, full text, kind, tags, timestamp and links. ' +
      'Use it when a search snippet or list preview is not enough. Ids that do not exist are listed in missing.',
    inputSchema: {
      type: 'object',
      properties: {
        id: { ...ID, description: 'One memory id.' },
        ids: { type: 'array', items: ID, minItems: 1, maxItems: 50, description: 'Several memory ids.' },
      },
      additionalProperties: false,
    },
    outputSchema: object(
      {
        memories: { type: 'array', items: MEMORY },
        missing: { type: 'array', items: { type: 'string' }, description: 'Ids with no memory.' },
      },
      ['memories', 'missing'],
    ),
    annotations: { title: 'Get memories', ...READ },
  },
  {
    name: 'memory_related',
    title: 'Related memories',
    description:
      'Memories linked to one memory, without search words: what it depends on or supersedes (direction "out"), ' +
      'what depends on or links to it ("in"), or both, up to 3 links away; nearest first. ' +
      'Use it for "what depends on X", "what replaced X", or to gather the context around a memory found by memory_search. ' +
      'Each result says how it was reached (via: from, type, hops). Links to deleted memories are skipped.',
    inputSchema: {
      type: 'object',
      properties: {
        id: { ...ID, description: 'Id of the memory to start from.' },
        hops: HOPS,
        types: LINK_TYPES,
        direction: DIRECTION,
        limit: { type: 'integer', minimum: 1, maximum: 50, default: 10, description: 'Maximum number of memories.' },
      },
      required: ['id'],
      additionalProperties: false,
    },
    outputSchema: object(
      {
        id: { type: 'string' },
        memories: {
          type: 'array',
          items: object(
            { ...MEMORY_OUT, preview: { type: 'string', description: 'Start of the text (… when cut).' }, via: VIA },
            ['id', 'preview', 'via'],
          ),
        },
        returned: { type: 'integer' },
      },
      ['id', 'memories', 'returned'],
    ),
    annotations: { title: 'Related memories', ...READ },
  },
  {
    name: 'memory_store',
    title: 'Store memories',
    description:
      'Save a memory (or several at once in memories) so it can be found later by content. Give a short specific title, ' +
      'the full text (what, why, and the identifiers involved), a kind (decision, rule, observation, note, ...) and tags; ' +
      'timestamp defaults to now. Returns the ids. An id is generated when you give none; giving an id that already exists is an error ' +
      'unless replace is true (which overwrites the whole memory; to change some fields use memory_update). ' +
      'When a new decision replaces an older one, store it with links: [{ "type": "SUPERSEDES", "to": "<old id>" }].',
    inputSchema: {
      type: 'object',
      properties: {
        id: { ...ID, description: 'Id to store under; generated when omitted.' },
        ...MEMORY_FIELDS,
        memories: {
          type: 'array',
          minItems: 1,
          maxItems: 50,
          description: 'Several memories at once (instead of the single-memory fields).',
          items: {
            type: 'object',
            properties: { id: { ...ID, description: 'Id; generated when omitted.' }, ...MEMORY_FIELDS },
            required: ['text'],
            additionalProperties: false,
          },
        },
        replace: { type: 'boolean', default: false, description: 'Overwrite memories whose id already exists.' },
      },
      additionalProperties: false,
    },
    outputSchema: object(
      {
        stored: {
          type: 'array',
          items: object({ id: { type: 'string' }, replaced: { type: 'boolean' } }, ['id', 'replaced']),
        },
        count: { type: 'integer' },
      },
      ['stored', 'count'],
    ),
    annotations: {
      title: 'Store memories',
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
      'Change some fields of an existing memory; fields you leave out are kept (tags and links are replaced as whole lists). ' +
      'Use it to correct or extend a memory, or to mark an old decision as superseded (e.g. tags: ["superseded"]). Returns the memory as stored now.',
    inputSchema: {
      type: 'object',
      properties: { id: { ...ID, description: 'Id of the memory to change.' }, ...MEMORY_FIELDS },
      required: ['id'],
      additionalProperties: false,
    },
    outputSchema: object(
      {
        memory: MEMORY,
        changed: { type: 'array', items: { type: 'string' }, description: 'Fields that were given.' },
      },
      ['memory', 'changed'],
    ),
    annotations: { title: 'Update a memory', readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  },
  {
    name: 'memory_delete',
    title: 'Delete memories',
    description:
      'Delete memories permanently, by ids, or by a filter (kind, tags, since/until). A filter without confirm deletes nothing and ' +
      'returns how many memories match and some of their ids; call again with confirm: true to delete them. ' +
      'Prefer memory_update to correct a memory; delete what is wrong, obsolete or unwanted.',
    inputSchema: {
      type: 'object',
      properties: {
        id: { ...ID, description: 'One memory id.' },
        ids: { type: 'array', items: ID, minItems: 1, maxItems: 100, description: 'Several memory ids.' },
        ...FILTERS,
        confirm: { type: 'boolean', default: false, description: 'Required to delete by filter; without it you get a preview.' },
      },
      additionalProperties: false,
    },
    outputSchema: object(
      {
        deleted: { type: 'integer' },
        ids: { type: 'array', items: { type: 'string' }, description: 'Deleted ids (or, in a preview, some that would be).' },
        missing: { type: 'array', items: { type: 'string' }, description: 'Requested ids with no memory.' },
        matched: { type: 'integer', description: 'Memories matching the filter.' },
        confirmed: { type: 'boolean' },
      },
      ['deleted', 'ids', 'confirmed'],
    ),
    annotations: { title: 'Delete memories', readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  },
];
