// The hostile request shapes, in the order they are sent.
import { MAX_BODY, MAX_RESULTS, NS, SIZES, mib, random, sleep } from './config.mjs';
import { W, countFiles, isolateInfo, keys, many, mcp, req, search, toolCall } from './worker.mjs';

// The most frequent words of the first 20k package descriptions (after
// stopwords): in OR mode they match most documents, so offsets up to the
// maximum have candidates.
const BROAD = 'python library package api data tool simple sdk client server plugin cli framework module wrapper code files';
const words = ['http', 'client', 'library', 'python', 'server', 'data', 'parser', 'json', 'api', 'tool', 'test', 'async', 'simple', 'fast', 'web', 'plugin', 'framework', 'database', 'cli', 'logging'];
const longQuery = (bytes, gen) => {
  let q = '';
  for (let i = 0; ; i++) {
    const next = (q ? ' ' : '') + gen(i);
    if (Buffer.byteLength(q + next) > bytes) return q;
    q += next;
  }
};
const ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';
const nested = (depth, leaf) => '['.repeat(depth) + leaf + ']'.repeat(depth);
/** A JSON body of exactly maxBodyBytes + 1 bytes: `head` + x... + `tail`. */
const overBody = (head, tail) => head + 'x'.repeat(MAX_BODY + 1 - Buffer.byteLength(head + tail)) + tail;

/**
 * Each shape: name, what it sends, and run() returning its responses
 * (or { responses, note }). Order: cheap first, the ones known to hang or
 * trap today's engine last, so a restart costs the least.
 */
export const shapes = [
  // --- search options at and past their documented maxima
  { name: 'search plain, limit 100 offset 9900 (max offset+limit)', run: () => search({ query: BROAD, limit: 100, offset: MAX_RESULTS - 100 }) },
  { name: 'search offset+limit 10001 (over the max)', run: () => search({ query: 'http client', limit: 100, offset: MAX_RESULTS - 99 }) },
  { name: 'explain on every hit, limit 100, 8 terms', run: () => search({ query: words.slice(0, 8).join(' '), explain: true, limit: 100 }) },
  { name: 'explain + fuzzy auto + prefix, limit 100 offset 900', run: () => search({ query: words.slice(0, 12).join(' '), explain: true, fuzzy: 'auto', prefix: true, limit: 100, offset: 900 }) },
  { name: '1,024 one-letter prefixes (3 KB, over maxQueryBytes)', run: () => search({ query: Array.from({ length: 1024 }, (_, i) => `${ALNUM[i % 36]}*`).join(' '), limit: 100 }) },
  { name: 'one-letter prefixes filling 1 KB (341 terms)', run: () => search({ query: longQuery(1024, (i) => `${ALNUM[i % 36]}*`), limit: 100 }) },
  { name: '"ab~2" repeated to 1 KB', run: () => search({ query: longQuery(1024, () => 'ab~2'), limit: 100 }) },
  { name: 'fuzzy auto on a 1 KB query', run: () => search({ query: longQuery(1024, (i) => words[i % words.length] + 'x'), fuzzy: 'auto', limit: 100 }) },
  { name: 'fuzzy 2 + prefix on a 1 KB query', run: () => search({ query: longQuery(1024, (i) => words[(i * 7) % words.length]), fuzzy: 2, prefix: true, limit: 100 }) },
  { name: 'proximity depth 1000 on a 1 KB query', run: () => search({ query: longQuery(1024, (i) => words[i % words.length]), proximity: { depth: 1000 }, limit: 100, offset: 400 }) },
  { name: 'mode and + fuzzy 2 on 150 terms', run: () => search({ query: longQuery(1024, (i) => words[i % words.length]), mode: 'and', fuzzy: 2, limit: 100 }) },
  { name: 'sort timestamp desc, offset 9900 limit 100', run: () => search({ query: BROAD, sort: { field: 'timestamp', order: 'desc' }, limit: 100, offset: MAX_RESULTS - 100 }) },
  { name: 'blank query + sort + filter, offset 9900', run: () => search({ query: '', filter: { kind: ['pypi', 'npm'] }, sort: { field: 'timestamp', order: 'asc' }, limit: 100, offset: MAX_RESULTS - 100 }) },
  { name: 'huge filter list (kind in 10k values)', run: () => search({ query: 'http', filter: { kind: Array.from({ length: 10_000 }, (_, i) => `kind-${i}`) }, limit: 100 }) },
  { name: 'huge namespace filter (10k values)', run: () => search({ query: 'http', filter: { namespace: Array.from({ length: 10_000 }, (_, i) => `team-b:${i}`) }, limit: 100 }) },
  { name: 'filter naming another namespace (tenancy)', run: () => search({ query: 'http', filter: { namespace: 'team-b:secret' }, limit: 10 }) },
  { name: 'long field names (60 KB) in fields and sort', run: async () => [await search({ query: 'http', fields: { ['f'.repeat(60_000)]: 1 } }), await search({ query: 'http', sort: { field: 'g'.repeat(60_000) } })] },
  { name: '10k-element arrays (storedFields, fields)', run: async () => [await search({ query: 'http', storedFields: Array.from({ length: 10_000 }, (_, i) => `f${i}`) }), await search({ query: 'http', fields: Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`f${i}`, 1])) })] },
  {
    name: 'unicode junk queries (6 kinds)',
    run: () =>
      Promise.all(
        [
          longQuery(1024, () => 'a\u0301\u0302\u0303\u0304'), // stacked combining marks
          '\ud800\udc00\ud800 lone \udfff surrogates \ud83d',
          longQuery(1024, () => '\u202e\u200b\u200d\ufeff'), // bidi override, zero-width
          longQuery(1024, () => '\u{1F600}\u{1F469}\u200d\u{1F4BB}'), // emoji, ZWJ sequences
          'nul\u0000byte \u0007bell \u001f unit-sep',
          longQuery(1024, (i) => String.fromCodePoint(0x4e00 + ((i * 37) % 20000))), // CJK without spaces
        ].map((query) => search({ query, fuzzy: 'auto', prefix: true, highlight: true, limit: 100 })),
      ),
  },
  { name: 'deeply nested JSON body (100k levels)', run: () => req('POST', `/v1/ns/${NS}/search`, { body: `{"query":"http","filter":{"kind":${nested(100_000, '"x"')}}}`, headers: { 'content-type': 'application/json' } }) },
  { name: 'oversized search body (maxBodyBytes + 1)', run: () => req('POST', `/v1/ns/${NS}/search`, { body: overBody('{"query":"http","pad":"', '"}'), headers: { 'content-type': 'application/json' } }) },
  { name: 'GET search with a ~70 KB URL (6k-value filter)', run: () => req('GET', `/v1/ns/${NS}/search?q=http&filter=${encodeURIComponent(JSON.stringify({ kind: Array.from({ length: 6000 }, (_, i) => `k${i}`) }))}`) },
  { name: 'suggest prefix "a", limit 100', run: () => req('GET', `/v1/ns/${NS}/suggest?prefix=a&limit=100`) },
  { name: 'strategy auto, relation question, limit 100', run: () => search({ query: 'what depends on http client library', strategy: 'auto', limit: 100 }) },
  {
    name: 'hybrid with a vector (skipped: no vector field)',
    skipped: "the Worker's namespaces use the default schema, which has no vector field (writes cannot add one); sent anyway, expected 4xx",
    run: () => search({ query: 'http client', vector: Array.from({ length: 384 }, () => random() - 0.5), hybrid: { method: 'rrf', candidates: MAX_RESULTS }, limit: 100 }),
  },
  { name: 'highlight tags 1 KB, limit 100', run: () => search({ query: BROAD, highlight: { preTag: '<'.padEnd(1024, 'p'), postTag: '>'.padEnd(1024, 'q') }, limit: 100 }) },
  { name: 'highlight tags 64 KB, limit 100', run: () => search({ query: BROAD, highlight: { preTag: 'p'.repeat(64 << 10), postTag: 'q'.repeat(64 << 10) }, limit: 100 }) },
  { name: 'expand hops 3 both, limit 100', run: () => search({ query: 'http client', expand: { hops: 3, direction: 'both' }, limit: 100 }) },

  // --- keys, rate limits, namespaces
  {
    name: 'rate limit: 6 REST calls, key of 5/min',
    run: async () => {
      const out = [];
      for (let i = 0; i < 6; i++) out.push(await search({ query: 'http', limit: 1 }, { key: keys.slow }));
      return { responses: out, note: `6th: ${out[5].status}` };
    },
  },
  {
    name: `MCP batch: ${SIZES.mcpBatch} memory_search + expand 3 both (key of 5/min)`,
    run: async () => {
      const r = await mcp(
        Array.from({ length: SIZES.mcpBatch }, (_, i) => toolCall('memory_search', { namespace: NS, query: `${words[i % words.length]} ${words[(i + 3) % words.length]}`, limit: 50, maxChars: 20000, expand: { hops: 3, direction: 'both' } })),
        { key: keys.slowBatch },
      );
      const answered = Array.isArray(r.body) ? r.body.filter((m) => m.result && !m.result.isError).length : 0;
      return { responses: [r], note: `${answered}/${SIZES.mcpBatch} tool calls answered on one token` };
    },
  },
  {
    name: `MCP batches: ${SIZES.ghostBatches} x ${SIZES.ghostPerBatch} nonexistent namespaces (key of 10/min)`,
    run: async () => {
      const before = await isolateInfo();
      const out = [];
      for (let b = 0; b < SIZES.ghostBatches; b++) {
        out.push(await mcp(Array.from({ length: SIZES.ghostPerBatch }, (_, i) => toolCall('memory_search', { namespace: `team-a:ghost-${b}-${i}`, query: 'x' })), { key: keys.slowGhost }));
      }
      const after = await isolateInfo();
      return { responses: out, note: `cached namespaces ${before?.namespaces?.length ?? '?'} -> ${after?.namespaces?.length ?? '?'}, wasm ${mib(after?.wasmMemoryBytes)} MiB` };
    },
  },
  {
    name: 'MCP: deeply nested arguments; body of maxBodyBytes + 1',
    run: async () => [
      await req('POST', '/mcp', { body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory_search","arguments":{"namespace":"${NS}","query":"x","tags":${nested(100_000, '"t"')}}}}`, headers: { 'content-type': 'application/json' } }),
      await req('POST', '/mcp', { body: overBody(`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory_search","arguments":{"namespace":"${NS}","query":"`, '"}}}]'), headers: { 'content-type': 'application/json' } }),
    ],
  },
  {
    name: `${SIZES.invalidKeys} invalid-key requests`,
    run: async () => {
      const out = await many(SIZES.invalidKeys, 25, (i) => req('GET', `/v1/ns/${NS}/search?q=http`, { key: `mdx_invalid${i}`.padEnd(47, 'x') }));
      return { responses: out, note: `${out.filter((r) => r.status === 429).length} answered 429` };
    },
  },
  {
    name: `stats?minGeneration=1 on ${SIZES.ghostStats} nonexistent namespaces`,
    run: async () => {
      const before = countFiles(`${W.state}/do`);
      const out = await many(SIZES.ghostStats, 10, (i) => req('GET', `/v1/ns/team-a:phantom-${i}-${Math.floor(random() * 1e9)}/stats?minGeneration=1`));
      await sleep(500);
      const after = countFiles(`${W.state}/do`);
      return { responses: out, note: `Durable Object storage files ${before} -> ${after}` };
    },
  },
  {
    name: `one write key creates ${SIZES.createNs} namespaces (maxNamespacesPerKey 100)`,
    run: async () => {
      const out = await many(SIZES.createNs, 10, (i) => req('PUT', `/v1/ns/team-a:many-${i}/docs/d`, { key: keys.creator, json: { text: `namespace ${i}` } }));
      return { responses: out, note: `${out.filter((r) => r.status === 200).length} created` };
    },
  },

  // --- writes
  { name: 'oversized write body (maxBodyBytes + 1)', run: () => req('POST', `/v1/ns/team-a:writes/docs`, { key: keys.writer, body: overBody('[{"id":"big","text":"', '"}]'), headers: { 'content-type': 'application/json' } }) },
  { name: 'deeply nested document (100k levels)', run: () => req('PUT', `/v1/ns/team-a:writes/docs/nested`, { key: keys.writer, body: `{"text":"x","tags":${nested(100_000, '"t"')}}`, headers: { 'content-type': 'application/json' } }) },
  { name: 'document nested 200 levels in a field', run: () => req('PUT', `/v1/ns/team-a:writes/docs/nested200`, { key: keys.writer, body: `{"text":"x","extra":${nested(200, '1')}}`, headers: { 'content-type': 'application/json' } }) },
  { name: 'document with a 10 KB field name', run: () => req('PUT', `/v1/ns/team-a:writes/docs/longname`, { key: keys.writer, json: { text: 'x', ['n'.repeat(10_000)]: 'v' } }) },
  { name: 'document with 10k tags', run: () => req('PUT', `/v1/ns/team-a:writes/docs/tags`, { key: keys.writer, json: { text: 'many tags', tags: Array.from({ length: 10_000 }, (_, i) => `t${i % 1000}`) } }) },
  { name: 'document with 1,025 links', run: () => req('PUT', `/v1/ns/team-a:writes/docs/links`, { key: keys.writer, json: { text: 'many links', links: Array.from({ length: 1025 }, (_, i) => ({ type: 'RELATES_TO', to: `d${i}` })) } }) },
  { name: 'document: one 64 KB token', run: () => req('PUT', `/v1/ns/team-a:writes/docs/token`, { key: keys.writer, json: { text: 'y'.repeat((64 << 10) - 20) } }) },
  {
    name: 'bulk write just under 1 MiB of unique words',
    run: () =>
      req('POST', `/v1/ns/team-a:writes/docs`, {
        key: keys.writer,
        json: Array.from({ length: 15 }, (_, d) => ({ id: `u${d}`, text: Array.from({ length: 6500 }, (_, i) => `w${d}x${i.toString(36)}`).join(' ') })),
      }),
  },
  {
    name: 'document with timestamp 1e20, then reads',
    run: async () => {
      const ns = 'team-a:ts';
      const put = await req('PUT', `/v1/ns/${ns}/docs/far`, { key: keys.writer, json: { text: 'far future', timestamp: 1e20 } });
      await req('PUT', `/v1/ns/${ns}/docs/near`, { key: keys.writer, json: { text: 'near present', timestamp: Date.now() } });
      const g = put.body?.generation ?? 1;
      const s = await req('POST', `/v1/ns/${ns}/search`, { json: { query: 'future', minGeneration: g } });
      const l = await mcp(toolCall('memory_list', { namespace: ns }));
      const gt = await mcp(toolCall('memory_get', { namespace: ns, id: 'far' }));
      const err = (r) => (r.body?.result?.isError ? `error "${String(r.body.result.content?.[0]?.text).slice(0, 80)}"` : r.body?.error ? `rpc-error ${r.body.error.message.slice(0, 80)}` : r.status === 200 ? 'ok' : r.status);
      return { responses: [put, s, l, gt], note: `PUT ${put.status}; search ${s.status}${s.body?.error ? ` ${s.body.error.code} "${s.body.error.message.slice(0, 60)}"` : ''}; memory_list ${err(l)}; memory_get ${err(gt)}` };
    },
  },
  {
    name: 'delete with a filter naming another namespace',
    run: async () => {
      const ns = 'team-a:victim';
      const w = await req('POST', `/v1/ns/${ns}/docs`, { key: keys.writer, json: [1, 2, 3].map((i) => ({ id: `v${i}`, text: `victim ${i}` })) });
      const del = await req('POST', `/v1/ns/${ns}/delete`, { key: keys.writer, json: { filter: { namespace: 'team-a:other' } } });
      const st = await req('GET', `/v1/ns/${ns}/stats?minGeneration=${del.body?.generation ?? w.body?.generation ?? 0}`);
      return { responses: [w, del, st], note: `removed ${del.body?.removed ?? '?'} of 3; ${st.body?.documents ?? '?'} left` };
    },
  },

  // --- the expensive ones (today: tens of seconds, or a wasm trap)
  { name: 'all options at once: diversity+dedupe+expand 3+explain+highlight+proximity+fuzzy, offset 900', run: () => search({ query: 'python library client tool', diversity: 0.5, dedupe: true, expand: { hops: 3, direction: 'both' }, explain: true, highlight: true, proximity: true, fuzzy: 'auto', prefix: true, limit: 100, offset: 900 }) },
  { name: 'diversity 0.5 + dedupe, limit 100 offset 2900 ("alpha beta gamma", the issue\'s)', run: () => search({ query: 'alpha beta gamma', diversity: 0.5, dedupe: true, limit: 100, offset: 2900 }) },
  { name: 'diversity 0.5 + dedupe, limit 100 offset 2900, broad query', run: () => search({ query: BROAD, diversity: 0.5, dedupe: true, limit: 100, offset: 2900 }) },
  { name: 'diversity 0.5 + dedupe, limit 100 offset 9900 (max), broad query', run: () => search({ query: BROAD, diversity: 0.5, dedupe: true, limit: 100, offset: MAX_RESULTS - 100 }) },
  { name: 'highlight tags 600 KB (under maxBodyBytes)', run: () => search({ query: BROAD, highlight: { preTag: 'p'.repeat(300 << 10), postTag: 'q'.repeat(300 << 10) }, limit: 100 }) },
];
