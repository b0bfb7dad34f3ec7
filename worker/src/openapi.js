// @ts-check
// GET /v1/openapi.json: the OpenAPI 3.1 description of every route in
// routes.js. tests/worker/openapi.test.mjs validates the real responses of
// every route against it and checks that it lists exactly the routes of
// the routing table, so it cannot drift from the code.
import { json } from './http.js';
import { DEFAULT_LIMITS } from './config.js';
import { ERRORS } from 'memdex/errors';

// The codes an HTTP error can carry: the error table's, less the agent
// tools' own (those come back inside MCP tool results).
const HTTP_CODES = Object.entries(ERRORS).filter(([, e]) => e.from !== 'tools').map(([code]) => code);
const ref = (/** @type {string} */ name) => ({ $ref: `#/components/schemas/${name}` });
const jsonBody = (/** @type {object} */ schema) => ({ 'application/json': { schema } });
const ok = (/** @type {string} */ description, /** @type {object} */ schema) => ({ description, content: jsonBody(schema) });
const err = (/** @type {string} */ description) => ({ description, content: jsonBody(ref('Error')) });
const ints = (/** @type {string[]} */ ...names) => Object.fromEntries(names.map((n) => [n, { type: 'integer' }]));

// The error answers every authenticated route can give.
const COMMON_ERRORS = {
  400: err('Malformed request: bad JSON, parameter, id or namespace (BAD_REQUEST, SCHEMA, USAGE, INVALID_QUERY), or a parameter over a limit (LIMIT)'),
  401: err('No or unknown API key (UNAUTHORIZED); past authFailuresPerMinute such requests from one address, 429'),
  403: err('The key has no access to this namespace or lacks the role (FORBIDDEN), its namespace quota is used up, or the namespace is full: maxNamespaceBytes, writes that add or enlarge documents (LIMIT)'),
  404: err('No such namespace or document (NOT_FOUND)'),
  405: err('Method not allowed on this path (USAGE)'),
  429: err('Too many requests with this key (limit requestsPerMinute), or with a missing or invalid key from this address (authFailuresPerMinute): LIMIT, with Retry-After'),
  500: err('Internal error (INTERNAL); an engine that failed is reloaded, so a retry is answered by a new one'),
  503: err('Storage failed; nothing was written, retry (STORAGE)'),
};
const BODY_ERRORS = {
  413: err('Body, document count or document size over its limit (LIMIT)'),
  415: err('Unsupported content-type (BAD_REQUEST)'),
};

const NS = { name: 'ns', in: 'path', required: true, description: 'Namespace: 1-128 of A-Z a-z 0-9 . _ : @ -', schema: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$' } };
const ID = { name: 'id', in: 'path', required: true, description: 'Document id (percent-encoded; no control characters, at most 200 characters)', schema: { type: 'string', minLength: 1 } };
const MIN_GEN = {
  name: 'minGeneration',
  in: 'query',
  description: 'Read at least this generation (from a write answer): read-your-writes across isolates',
  schema: { type: 'integer', minimum: 0 },
};
const q = (/** @type {string} */ name, /** @type {object} */ schema, /** @type {string} */ description) => ({ name, in: 'query', schema, description });

/**
 * @param {string} summary
 * @param {object} extra  parameters, requestBody, responses...
 */
const op = (summary, extra) => ({ summary, security: [{ bearer: [] }], ...extra });

const SEARCH_QUERY = [
  q('q', { type: 'string' }, 'The query (lenient syntax never fails: terms, "phrases", prefix*, fuzzy~1, +must, -not, AND/OR/NOT, field:term, term^2)'),
  q('mode', { type: 'string', enum: ['or', 'and', 'fallback'] }, 'or (default), and, or fallback (AND, then OR)'),
  q('syntax', { type: 'string', enum: ['lenient', 'strict'] }, 'strict: malformed queries are 400 INVALID_QUERY'),
  q('limit', { type: 'integer', minimum: 0, maximum: DEFAULT_LIMITS.maxLimit }, 'Hits to return (default 10)'),
  q('offset', { type: 'integer', minimum: 0 }, 'Hits to skip'),
  q('minHits', { type: 'integer', minimum: 0 }, 'fallback mode: OR when AND finds fewer'),
  q('fields', { type: 'string' }, 'Text fields and weights: title:3,text or JSON {"title":3}'),
  q('filter', { type: 'string' }, 'JSON filter, e.g. {"kind":"rule","timestamp":{"gte":"2026-01-01"}}'),
  q('prefix', { type: 'boolean' }, 'Bare terms also match as prefixes'),
  q('fuzzy', { type: 'string', enum: ['0', '1', '2', 'true', 'false'] }, 'Edit distance for bare terms'),
  q('highlight', { type: 'string' }, 'true, or JSON {"preTag","postTag","snippetLength"}; a tag over 64 bytes is 400 LIMIT'),
  q('explain', { type: 'boolean' }, 'Per-term score breakdown'),
  q('k1', { type: 'number' }, 'BM25 k1 override'),
  q('b', { type: 'number' }, 'BM25 b override'),
  q('storedFields', { type: 'string' }, 'true, false, or a comma list of stored fields'),
  q('sort', { type: 'string' }, 'field or field:asc|desc (number, date, boolean or keyword field)'),
  q('proximity', { type: 'string' }, 'true, or JSON {"weight","window","depth"}: rerank by how close the query words stand (opt-in)'),
  q('strategy', { type: 'string', enum: ['none', 'auto'] }, 'auto: rules choose the mode from the query; the answer says what in "strategy"'),
  q('expand', { type: 'string' }, 'true, or JSON {"hops":1..3,"types":[...],"direction":"out|in|both","limit":n}: add at most limit (default 10, at most maxLimit) linked memories of this namespace'),
  q('recency', { type: 'string' }, 'JSON {"field","halfLife":"30d","weight":0.5,"exempt":{filter}}: decay scores by age'),
  q('diversity', { type: 'string' }, 'true, a lambda 0..1, or JSON {"lambda":0.7}: MMR re-ranking'),
  q('dedupe', { type: 'boolean' }, 'Collapse hits with equal title+text (hit.duplicates)'),
  q('vector', { type: 'string' }, 'JSON array: the query embedding (a namespace with a vector field); alone a vector search, with q a hybrid one'),
  q('vectorField', { type: 'string' }, 'The vector field to search (optional with one vector field)'),
  q('hybrid', { type: 'string' }, 'JSON {"method","k","alpha","candidates"}: how a hybrid search fuses its two lists'),
  q('semantic', { type: 'string', enum: ['hybrid', 'vector'] }, 'Search by meaning: q embedded by the Worker\'s Workers AI binding (AI) into the namespace\'s vector field, fused with the words (hybrid) or alone (vector); without the binding, answered by words and said in warnings'),
  q('trackTotal', { type: 'string' }, 'How many matches "total" counts exactly (default 10000; true: all, false: none past the ranking)'),
  MIN_GEN,
];

const schemas = {
  Error: {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: {
          code: {
            type: 'string',
            enum: HTTP_CODES,
          },
          message: { type: 'string' },
          added: { type: 'integer', description: 'Documents added (and committed) before the rejected one' },
          generation: { type: 'integer', description: 'Generation holding the added documents' },
          limit: { type: 'string', description: 'Which limit (a MEMDEX_LIMITS key)' },
        },
      },
    },
  },
  Document: {
    type: 'object',
    required: ['id'],
    description: 'A document: the base fields title, text (text fields), kind, tags (keywords), timestamp (date), links, plus the fields of the namespace\'s schema (PUT /v1/ns/{ns}); a vector field takes an array of its dimensions\' numbers',
    properties: {
      id: { type: 'string' },
      namespace: { type: 'string' },
      title: { type: 'string' },
      text: { type: 'string' },
      kind: { type: 'string' },
      tags: { type: 'array', items: { type: 'string' } },
      timestamp: { type: ['string', 'number'] },
      links: { type: 'array', items: { type: 'object', properties: { type: { type: 'string' }, to: { type: 'string' } } } },
    },
  },
  WriteResult: {
    type: 'object',
    required: ['added', 'generation'],
    properties: { added: { type: 'integer' }, generation: { type: 'integer', description: 'Durable generation holding the write' } },
  },
  Changes: {
    type: 'object',
    description: 'The fields to change (as in Document); null removes a field; fields left out keep their values, and the document keeps its vectors and links unless given. id and namespace, if given, must be the URL\'s',
    additionalProperties: true,
  },
  PatchResult: {
    type: 'object',
    required: ['patched', 'generation'],
    properties: { patched: { type: 'boolean', const: true }, generation: { type: 'integer', description: 'Durable generation holding the write' } },
  },
  RemoveResult: {
    type: 'object',
    required: ['removed', 'generation'],
    properties: { removed: { type: ['boolean', 'integer'] }, generation: { type: 'integer' } },
  },
  SearchRequest: {
    type: 'object',
    additionalProperties: false,
    properties: {
      query: { type: 'string' },
      minGeneration: { type: 'integer', minimum: 0 },
      mode: { type: 'string', enum: ['or', 'and', 'fallback'] },
      syntax: { type: 'string', enum: ['lenient', 'strict'] },
      limit: { type: 'integer', minimum: 0, maximum: DEFAULT_LIMITS.maxLimit },
      offset: { type: 'integer', minimum: 0 },
      minHits: { type: 'integer', minimum: 0 },
      fields: { type: 'object', additionalProperties: { type: 'number' } },
      filter: { type: 'object' },
      prefix: { type: 'boolean' },
      fuzzy: { type: ['integer', 'boolean'] },
      highlight: {
        type: ['boolean', 'object'],
        description: 'true, or {preTag, postTag, snippetLength}; each tag at most 64 bytes (UTF-8), else 400 LIMIT',
        properties: { preTag: { type: 'string' }, postTag: { type: 'string' }, snippetLength: { type: 'integer' } },
      },
      explain: { type: 'boolean' },
      k1: { type: 'number' },
      b: { type: 'number' },
      storedFields: { type: ['boolean', 'array'], items: { type: 'string' } },
      sort: { type: 'object', required: ['field'], properties: { field: { type: 'string' }, order: { type: 'string', enum: ['asc', 'desc'] } } },
      proximity: { type: ['boolean', 'object'] },
      strategy: { type: 'string', enum: ['none', 'auto'] },
      expand: { type: ['boolean', 'object'] },
      recency: { type: 'object' },
      diversity: { type: ['boolean', 'number', 'object'] },
      dedupe: { type: 'boolean' },
      trackTotal: { type: ['integer', 'boolean'], description: 'How many matches "total" counts exactly (default 10000; true: all, false: none past the ranking)' },
      vector: { type: 'array', items: { type: 'number' }, description: 'Query embedding of the vector field\'s dimensions: alone (blank query) a vector search, with a query a hybrid search' },
      vectorField: { type: 'string', description: 'The vector field to search; may be left out when the schema has exactly one' },
      hybrid: { type: 'object', description: 'How a hybrid search fuses its lexical and vector lists, e.g. {"method":"rrf"}' },
      semantic: { type: 'string', enum: ['hybrid', 'vector'], description: 'Search by meaning without a vector: the query embedded by the Worker\'s Workers AI binding (AI), fused with the words (hybrid) or alone (vector); without the binding answered by words (semantic: lexical, a line in warnings)' },
    },
  },
  Schema: {
    type: 'object',
    maxProperties: 32,
    description:
      'Fields added to the base fields (title, text, kind, tags, timestamp, links; id and namespace are reserved, and none of these can be redefined: SCHEMA). ' +
      'Each is a type name ("text", "keyword", "number", "date", "boolean", "stored") or a definition such as {"type": "vector", "dimensions": 384, "metric": "cosine"} (dimensions at most 4096) ' +
      'or {"type": "text", "weight": 2}. At most 32 fields, names of letters, digits and _ up to 64 characters (else LIMIT or SCHEMA).',
    propertyNames: { pattern: '^[A-Za-z_][A-Za-z0-9_]{0,63}$' },
    additionalProperties: { oneOf: [{ type: 'string', enum: ['text', 'keyword', 'number', 'date', 'boolean', 'stored'] }, { type: 'object', required: ['type'] }] },
  },
  Namespace: {
    type: 'object',
    required: ['namespace', 'schema', 'baseFields', 'documents', 'generation'],
    properties: {
      namespace: { type: 'string' },
      schema: ref('Schema'),
      baseFields: { type: 'array', items: { type: 'string' }, description: 'The fields every namespace has' },
      documents: { type: 'integer' },
      generation: { type: 'integer' },
    },
  },
  Created: {
    type: 'object',
    required: ['namespace', 'schema', 'created', 'generation'],
    properties: {
      namespace: { type: 'string' },
      schema: ref('Schema'),
      created: { type: 'boolean', description: 'false: it existed already with this same schema' },
      generation: { type: 'integer' },
    },
  },
  Hit: {
    type: 'object',
    required: ['id', 'score', 'fields', 'matchedTerms'],
    properties: {
      id: { type: 'string' },
      score: { type: 'number' },
      namespace: { type: 'string' },
      fields: { type: 'object' },
      matchedTerms: { type: 'array', items: { type: 'string' } },
      snippets: { type: 'object', additionalProperties: { type: 'string' } },
      explanation: { type: 'array', items: { type: 'object' } },
    },
  },
  SearchResults: {
    type: 'object',
    required: ['hits', 'mode', 'generation', 'tookMs'],
    properties: {
      hits: { type: 'array', items: ref('Hit') },
      mode: { type: 'string', enum: ['or', 'and'] },
      total: { type: 'integer' },
      warnings: { type: 'array', items: { type: 'string' }, description: 'How the query was read differently from how it was written, e.g. kind:rule applied as the filter { kind: rule }; a semantic search answered by words says so' },
      strategy: { type: 'object', description: 'What strategy "auto" chose: name, reason, mode, proximity, expand?, hybrid?, query?' },
      semantic: { type: 'string', enum: ['hybrid', 'vector', 'lexical'], description: 'A semantic search: what ranked the hits (lexical: no embedder, words alone)' },
      limited: {
        type: 'array',
        items: { type: 'string', enum: ['expansions', 'scoring', 'rerank', 'expand', 'answer'] },
        description:
          'Present only when the search hit its cost budget (lenient syntax; strict answers 400 LIMIT instead) and hits is a partial answer, naming which stages ran out: ' +
          'expansions (prefix and fuzzy terms), scoring (documents scored), rerank (the candidates of diversity, dedupe, proximity and hybrid re-ranking), ' +
          'expand (memories added by following links), answer (hits and bytes of the answer, snippets and highlights included)',
      },
      generation: { type: 'integer' },
      tookMs: { type: 'number' },
    },
  },
  Suggestions: {
    type: 'object',
    required: ['suggestions', 'generation'],
    properties: {
      suggestions: { type: 'array', items: { type: 'object', required: ['suggestion', 'score'], properties: { suggestion: { type: 'string' }, score: { type: 'integer' } } } },
      generation: { type: 'integer' },
    },
  },
  Stats: {
    type: 'object',
    required: ['documents', 'terms', 'segments', 'bytes', 'generation'],
    properties: { ...ints('documents', 'terms', 'segments', 'bytes', 'generation'), cache: { type: 'object', description: 'The stored-fields page cache (MEMDEX_PAGE_CACHE_BYTES): its bound, bytes held, hits and pages unpacked', required: ['limit', 'bytes', 'hits', 'unpacks'], properties: ints('limit', 'bytes', 'hits', 'unpacks') } },
  },
  Namespaces: {
    type: 'object',
    required: ['namespaces'],
    properties: {
      namespaces: { type: 'array', items: { type: 'object', required: ['name', 'createdAt'], properties: { name: { type: 'string' }, createdAt: { type: 'string' } } } },
      isolate: {
        type: 'object',
        description: 'Admin keys: this isolate\'s read copies (at most MEMDEX_CACHE_ENTRIES, never of a namespace that does not exist) and rate-limit buckets',
        properties: {
          wasmMemoryBytes: { type: 'integer' },
          loads: { type: 'integer' },
          entries: { type: 'integer', description: 'Namespaces with a copy' },
          namespaces: { type: 'array', items: { type: 'object' } },
          buckets: { type: 'object', properties: { keys: { type: 'integer' }, addresses: { type: 'integer' } } },
        },
      },
    },
  },
  Health: {
    type: 'object',
    required: ['ok', 'service', 'version', 'runtime'],
    properties: { ok: { type: 'boolean' }, service: { type: 'string' }, version: { type: 'string' }, runtime: { type: 'string' } },
  },
  JsonRpc: {
    type: 'object',
    required: ['jsonrpc'],
    description: 'A JSON-RPC 2.0 message (MCP): request, notification or response',
    properties: { jsonrpc: { const: '2.0' }, id: { type: ['string', 'integer', 'null'] }, method: { type: 'string' }, params: { type: 'object' }, result: { type: 'object' }, error: { type: 'object' } },
  },
};

const generationHeader = { 'x-memdex-generation': { description: 'Generation of the answer', schema: { type: 'integer' } } };

const paths = {
  '/health': { get: { summary: 'Liveness (public)', responses: { 200: ok('Up', ref('Health')) } } },
  '/v1/openapi.json': { get: { summary: 'This document (public)', responses: { 200: ok('OpenAPI 3.1', { type: 'object' }) } } },
  '/v1/namespaces': { get: op('Namespaces this key may access', { responses: { 200: ok('The list', ref('Namespaces')), ...COMMON_ERRORS } }) },
  '/v1/ns/{ns}': {
    put: op(
      'Create the namespace with a schema (write key): its fields are added to the base fields and used by every REST and MCP write and search of the namespace (vector fields: vector and hybrid search). ' +
        'Again on an existing namespace (200, created: false): the fields it names are added, or their weight changed, in place, the others kept, as Memdex.open({ schema }) upgrades an index; a change that needs a rebuild (a type, a language, vector dimensions) is 400 SCHEMA and changes nothing. A namespace created by its first write has the base fields only until then.',
      {
        parameters: [NS],
        requestBody: { required: true, content: jsonBody({ type: 'object', additionalProperties: false, properties: { schema: ref('Schema') } }) },
        responses: {
          200: { ...ok('It existed with this schema', ref('Created')), headers: generationHeader },
          201: { ...ok('Created (durable)', ref('Created')), headers: generationHeader },
          409: err('The namespace exists with another schema (CONFLICT)'),
          ...COMMON_ERRORS,
          ...BODY_ERRORS,
        },
      },
    ),
    get: op('The namespace: its schema, base fields and size', { parameters: [NS, MIN_GEN], responses: { 200: { ...ok('The namespace', ref('Namespace')), headers: generationHeader }, ...COMMON_ERRORS } }),
  },
  '/v1/ns/{ns}/docs': {
    post: op('Add or replace documents (bulk upsert); creates the namespace (write key)', {
      parameters: [NS],
      requestBody: {
        required: true,
        content: {
          'application/json': { schema: { oneOf: [ref('Document'), { type: 'array', items: ref('Document') }] } },
          'application/x-ndjson': { schema: { type: 'string', description: 'One document per line' } },
        },
      },
      responses: { 200: { ...ok('Durable', ref('WriteResult')), headers: generationHeader }, ...COMMON_ERRORS, ...BODY_ERRORS },
    }),
  },
  '/v1/ns/{ns}/docs/{id}': {
    put: op('Add or replace one document (write key)', {
      parameters: [NS, ID],
      requestBody: { required: true, content: jsonBody(ref('Document')) },
      responses: { 200: { ...ok('Durable', ref('WriteResult')), headers: generationHeader }, ...COMMON_ERRORS, ...BODY_ERRORS },
    }),
    patch: op('Change some fields of one document, keeping the others, its vectors and its links (write key); 404 NOT_FOUND when it does not exist', {
      parameters: [NS, ID],
      requestBody: { required: true, content: { ...jsonBody(ref('Changes')), 'application/merge-patch+json': { schema: ref('Changes') } } },
      responses: { 200: { ...ok('Durable', ref('PatchResult')), headers: generationHeader }, ...COMMON_ERRORS, ...BODY_ERRORS },
    }),
    get: op('One document', { parameters: [NS, ID, MIN_GEN, q('vectors', { type: 'boolean' }, 'true: with its vectors, each under its vector field as an array of numbers (unit length on cosine fields)')], responses: { 200: { ...ok('The document', ref('Document')), headers: generationHeader }, ...COMMON_ERRORS } }),
    delete: op('Delete one document (write key)', { parameters: [NS, ID], responses: { 200: ok('Durable', ref('RemoveResult')), ...COMMON_ERRORS } }),
  },
  '/v1/ns/{ns}/delete': {
    post: op('Delete every document of this namespace matching a filter (write key). A namespace condition in the filter is intersected with the URL\'s: one naming only other namespaces deletes nothing (removed: 0)', {
      parameters: [NS],
      requestBody: { required: true, content: jsonBody({ type: 'object', required: ['filter'], additionalProperties: false, properties: { filter: { type: 'object', minProperties: 1 } } }) },
      responses: { 200: ok('Durable', ref('RemoveResult')), ...COMMON_ERRORS, ...BODY_ERRORS },
    }),
  },
  '/v1/ns/{ns}/search': {
    get: op('Search (options as query parameters)', { parameters: [NS, ...SEARCH_QUERY], responses: { 200: { ...ok('Results', ref('SearchResults')), headers: generationHeader }, ...COMMON_ERRORS } }),
    post: op('Search (options as a JSON body)', {
      parameters: [NS],
      requestBody: { required: true, content: jsonBody(ref('SearchRequest')) },
      responses: { 200: { ...ok('Results', ref('SearchResults')), headers: generationHeader }, ...COMMON_ERRORS, ...BODY_ERRORS },
    }),
  },
  '/v1/ns/{ns}/suggest': {
    get: op('Completions of the last word of the input (as whole query strings)', {
      parameters: [NS, q('prefix', { type: 'string', minLength: 1 }, 'What the search box holds; its last word is completed'), q('limit', { type: 'integer', minimum: 0 }, 'At most (default 10)'), MIN_GEN],
      responses: { 200: ok('Completions', ref('Suggestions')), ...COMMON_ERRORS },
    }),
  },
  '/v1/ns/{ns}/stats': { get: op('Index statistics', { parameters: [NS, MIN_GEN], responses: { 200: ok('Stats', ref('Stats')), ...COMMON_ERRORS } }) },
  '/v1/ns/{ns}/export': {
    get: op('Snapshot for Memdex.import (admin key)', {
      parameters: [NS, MIN_GEN],
      responses: { 200: { description: 'Snapshot bytes', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } }, ...COMMON_ERRORS },
    }),
  },
  '/mcp': {
    post: op('MCP over Streamable HTTP (stateless JSON-RPC: initialize, ping, tools/list, tools/call). A batch holds at most maxBatchMessages messages (else 413 LIMIT) and costs one rate-limit token per message; a batch over the key\'s tokens is refused whole (429 LIMIT, nothing of it runs)', {
      requestBody: { required: true, content: jsonBody({ oneOf: [ref('JsonRpc'), { type: 'array', items: ref('JsonRpc') }] }) },
      responses: {
        200: ok('JSON-RPC response(s)', { oneOf: [ref('JsonRpc'), { type: 'array', items: ref('JsonRpc') }] }),
        202: { description: 'Only notifications or responses were sent' },
        400: { description: 'JSON-RPC parse error or unsupported protocol version', content: jsonBody({ oneOf: [ref('JsonRpc'), ref('Error')] }) },
        ...Object.fromEntries(Object.entries(COMMON_ERRORS).filter(([k]) => k !== '400')),
        ...BODY_ERRORS,
        413: err('Body over maxBodyBytes, or a batch over maxBatchMessages (LIMIT)'),
      },
    }),
  },
};

export const OPENAPI = {
  openapi: '3.1.0',
  info: {
    title: 'memdex edge memory service',
    version: '0.1.0',
    description:
      'Full-text memory for agents: one index per namespace, written through a Durable Object per namespace, read from Workers KV copies. ' +
      `Writes answer after the commit is durable with its generation; pass it as minGeneration to read your writes anywhere. Default limits: ${JSON.stringify(DEFAULT_LIMITS)}. ` +
      'Search options are the package\'s SearchOptions (index.d.ts), checked by the engine: in a POST body as JSON, in a GET query string one parameter each (JSON values such as limit=5 or filter={"kind":"rule"}, else text; fields=title:2,text, sort=timestamp:desc, storedFields=title,kind).',
  },
  components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } }, schemas },
  paths,
};

/** GET /v1/openapi.json */
export async function openapiResponse() {
  return json(OPENAPI, 200, { 'cache-control': 'public, max-age=300' });
}
