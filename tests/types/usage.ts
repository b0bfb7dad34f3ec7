// Compiled with `tsc --strict --noEmit` (tests/js/types.test.mjs) against the
// built package, resolved through its `exports` map (node_modules/memdex is a
// symlink to pkg/). Every `@ts-expect-error` line must be an error.
import {
  Memdex,
  MemdexError,
  memoryStorage,
  type CommitInfo,
  type Hit,
  type MemdexErrorCode,
  type MigrateResult,
  type OpenOptions,
  type RemoteMemdex,
  type SearchOptions,
  type SearchResults,
  type Stats,
  type StorageAdapter,
  type Suggestion,
} from 'memdex';
import { handleToolCall, memoryTools, toolDefinitions, type ToolResult } from 'memdex/tools';

async function main(): Promise<void> {
  const index: Memdex = await Memdex.open({
    name: 'notes',
    storage: 'indexeddb',
    language: 'english',
    schema: {
      title: { type: 'text', weight: 2 },
      text: { type: 'text' },
      kind: { type: 'keyword' },
      timestamp: { type: 'date' },
      pinned: { type: 'boolean' },
      score: { type: 'number', stored: false },
      raw: { type: 'stored' },
    },
    autoCommit: { delayMs: 500, maxWrites: 50 },
    onError: (err: MemdexError) => console.error(err.code),
  });
  const fsIndex = await Memdex.open({ storage: 'fs', dir: './data' });
  const custom: StorageAdapter = memoryStorage();
  const withAdapter = await Memdex.open({ storage: custom, autoCommit: false, analyzer: { foldDiacritics: true, addStopwords: ['foo'] } });

  index.add({ id: 'm1', namespace: 'agent', title: 'Deploy rule', text: 'Never on Fridays', timestamp: Date.now() });
  index.add({ id: 'm1', text: 'changed' });
  // @ts-expect-error upsert was removed in 0.x: add replaces by id
  index.upsert({ id: 'm1', text: 'changed' });
  const n: number = await index.addMany([{ id: 'a' }, { id: 'b' }], { batchSize: 100, onProgress: ({ added, total }) => console.log(added, total) });
  const removed: boolean = index.remove('m1');
  const count: number = index.removeWhere({ namespace: ['a', 'b'], kind: 'rule', timestamp: { gte: '2026-01-01' } });

  const options: SearchOptions = {
    mode: 'fallback',
    syntax: 'strict',
    limit: 10,
    offset: 0,
    minHits: 2,
    fields: { title: 3 },
    filter: { namespace: 'agent', pinned: true, score: { gt: 1, lte: 5 } },
    prefix: true,
    fuzzy: 1,
    highlight: { preTag: '<b>', postTag: '</b>', snippetLength: 120 },
    explain: true,
    k1: 1.2,
    b: 0.75,
    storedFields: ['title'],
  };
  const results: SearchResults = index.search('deploy', options);
  index.search('deploy', { storedFields: false });
  // An untyped index takes any field name (the engine checks them).
  index.search('deploy', { fields: { body: 2 }, filter: { anyField: 'x', n: { gte: 1 } }, sort: { field: 'any' }, storedFields: ['x'] });
  // @ts-expect-error storedFields takes a boolean or field names
  index.search('deploy', { storedFields: 'title' });
  // Listing without a query, sorted by a field; `total` when every match was visited.
  const recent: SearchResults = index.search('', { filter: { namespace: 'agent' }, sort: { field: 'timestamp', order: 'desc' }, limit: 20 });
  const matches: number | undefined = recent.total;
  // @ts-expect-error order is 'asc' or 'desc'
  index.search('', { sort: { field: 'timestamp', order: 'newest' } });
  const hit: Hit | undefined = results.hits[0];
  const mode: 'or' | 'and' = results.mode;
  const limited: ('expansions' | 'scoring' | 'rerank' | 'expand' | 'answer')[] | undefined = results.limited;
  const snippet: string | undefined = hit?.snippets?.text;
  const idf: number | undefined = hit?.explanation?.[0]?.idf;
  const suggestions: Suggestion[] = index.suggest('dep', { limit: 5 });
  const total: number = index.count();
  const stats: Stats = index.stats();
  const bytes: Uint8Array = index.export();
  const copy: Memdex = await Memdex.import(bytes, { storage: 'memory' });
  const info: CommitInfo = await index.commit();
  const reloaded: boolean = await index.reload();
  await index.close();

  const remote: RemoteMemdex = await Memdex.openInWorker({ name: 'w', storage: 'indexeddb' });
  const remoteResults: SearchResults = await remote.search('x', { limit: 3 });
  const remoteStats: Stats = await remote.stats();
  await remote.addMany([{ id: 'x' }], { onProgress: (p) => p.added });
  await remote.close();

  try {
    index.search('"x', { syntax: 'strict' });
  } catch (err) {
    if (err instanceof MemdexError) {
      const code: MemdexErrorCode = err.code;
      if (err.code === 'CONFLICT') await index.reload();
    }
  }
  try {
    await index.addMany([{ id: 'ok', text: 'fine' }]);
  } catch (err) {
    // How many went in before the rejected document.
    if (err instanceof MemdexError && err.added !== undefined) console.log(err.added + 1);
    // @ts-expect-error read-only
    if (err instanceof MemdexError) err.added = 0;
  }

  const tools = memoryTools.map((t) => t.name);
  const pinnedTools: boolean[] = toolDefinitions({ namespace: 'agent', readOnly: true }).map((t) => t.annotations.readOnlyHint);
  const listed: ToolResult = await handleToolCall(index, 'memory_list', { kind: 'rule' }, { namespace: 'agent', commit: true, now: () => 0 });
  const code: string | undefined = listed._meta?.['memdex/code'];
  const res: ToolResult = await handleToolCall(index, 'memory_search', { query: 'deploy' }, { namespace: 'agent', maxChars: 2000 });
  const isError: boolean = res.isError;
  const text: string = res.content[0].text;

  // --- misuse the compiler must reject ---
  // @ts-expect-error unknown option name
  await Memdex.open({ storag: 'memory' });
  // @ts-expect-error unknown storage name
  await Memdex.open({ storage: 'localStorage' });
  // @ts-expect-error autoCommit has no `delay`
  await Memdex.open({ autoCommit: { delay: 10 } });
  // @ts-expect-error a vector field needs its dimensions
  await Memdex.open({ schema: { title: { type: 'vector' } } });
  // @ts-expect-error vector metric is cosine or dot
  await Memdex.open({ schema: { title: { type: 'text' }, e: { type: 'vector', dimensions: 3, metric: 'l2' } } });
  const vec = await Memdex.open({ schema: { title: { type: 'text' }, e: { type: 'vector', dimensions: 3, quantize: 'int8' } } });
  const hybridHit = vec.search('x', { vector: new Float32Array(3), hybrid: { method: 'weighted', alpha: 0.3 } }).hits[0];
  const found: number | undefined = hybridHit?.vector?.rank ?? hybridHit?.lexical?.score;
  vec.search('', { vector: [1, 0, 0], vectorField: 'e' });
  // @ts-expect-error hybrid method is rrf or weighted
  vec.search('x', { vector: [1, 0, 0], hybrid: { method: 'max' } });
  void found;
  // @ts-expect-error a text field weight is a number
  await Memdex.open({ schema: { title: { type: 'text', weight: 'high' } } });
  // @ts-expect-error documents need an id
  index.add({ title: 'no id' });
  // @ts-expect-error ids are strings
  index.get(42);
  // @ts-expect-error unknown search mode
  index.search('x', { mode: 'xor' });
  // @ts-expect-error misspelled option
  index.search('x', { limt: 3 });
  // @ts-expect-error highlight tags are strings
  index.search('x', { highlight: { preTag: 1 } });
  // @ts-expect-error fuzzy is 0, 1, 2 or boolean
  index.search('x', { fuzzy: 3 });
  // @ts-expect-error search is synchronous on Memdex: no .then
  index.search('x').then(() => {});
  // @ts-expect-error remote methods are async: results must be awaited
  const wrong: SearchResults = remote.search('x');
  // @ts-expect-error storage adapters cannot cross into a worker
  await Memdex.openInWorker({ storage: custom });
  // @ts-expect-error the constructor is private
  new Memdex();
  // @ts-expect-error not an error code
  const badCode: MemdexErrorCode = 'OOPS';
  // @ts-expect-error suggest takes an options object or nothing
  index.suggest('x', { max: 3 });

  void [fsIndex, withAdapter, n, removed, count, mode, limited, snippet, idf, suggestions, total, stats, copy, info, reloaded, remoteResults, remoteStats, tools, pinnedTools, code, recent, matches, isError, text, wrong, badCode];
}

// --- a typed index: Memdex.open<Doc>() types documents, filters, fields and hits ---
interface Note {
  id: string;
  namespace?: string;
  title: string;
  text?: string;
  kind?: 'rule' | 'decision' | 'note';
  tags?: string[];
  priority?: number;
  pinned?: boolean;
  timestamp?: Date | string;
}

async function typed(): Promise<void> {
  const notes = await Memdex.open<Note>({ schema: { priority: 'number', pinned: 'boolean' } });
  const plain = await Memdex.create({ schema: { tags: 'keyword' }, defaultSchema: true });
  const own = await Memdex.open({ schema: { body: 'text', n: { type: 'number', stored: false } }, defaultSchema: false });
  notes.add({ id: 'n1', title: 'Use pnpm', kind: 'rule', tags: ['tooling'], priority: 2, pinned: true, timestamp: new Date() });
  notes.addAll([{ id: 'n2', title: 'x', timestamp: '2026-03-15T12:30:00Z' }]);
  await notes.addMany([{ id: 'n3', title: 'y' }]);
  const r: SearchResults<Note> = notes.search('pnpm', {
    filter: {
      namespace: { prefix: 'repo:webapp/' },
      kind: ['rule', 'decision'],
      priority: { gte: 1 },
      pinned: true,
      timestamp: { gte: new Date('2026-01-01'), lte: '2026-03-15' },
    },
    fields: { title: 3 },
    storedFields: ['title', 'tags'],
    sort: { field: 'priority', order: 'desc' },
  });
  const title: string | undefined = r.hits[0]?.fields.title;
  const tags: string[] | undefined = r.hits[0]?.fields.tags;
  // Stored dates come back as ISO strings.
  const when: string | undefined = notes.get('n1')?.timestamp;
  const warnings: string[] | undefined = r.warnings;
  const n: number = notes.count({ namespace: 'repo:*', tags: 'tooling', timestamp: new Date() });
  notes.count({ kind: 'rule', tags: ['a', 'b'], timestamp: '2026-03-15', priority: 3, pinned: false });
  notes.removeWhere({ namespace: ['a', 'b'] });
  // A typed index serves the MCP tools like any other.
  const served: ToolResult = await handleToolCall(notes, 'memory_search', { query: 'pnpm' });
  const remote: RemoteMemdex<Note> = await Memdex.openInWorker<Note>();
  const remoteHits: Hit<Note>[] = (await remote.search('x')).hits;

  // @ts-expect-error misspelled filter key
  notes.search('x', { filter: { knd: 'rule' } });
  // @ts-expect-error a number field takes numbers or ranges
  notes.count({ priority: 'high' });
  // @ts-expect-error a boolean field takes true or false
  notes.count({ pinned: 'yes' });
  // @ts-expect-error range bounds of a number field are numbers
  notes.count({ priority: { gte: '1' } });
  // @ts-expect-error a keyword field takes strings
  notes.count({ tags: 3 });
  // @ts-expect-error a field typed as a union of literals takes only those
  notes.count({ kind: 'rul' });
  // @ts-expect-error ... in lists too
  notes.count({ kind: ['rule', 'rul'] });
  // @ts-expect-error undeclared document field
  notes.add({ id: 'n4', title: 'x', colour: 'blue' });
  // @ts-expect-error wrong value type in a document
  notes.add({ id: 'n5', title: 'x', priority: 'high' });
  // @ts-expect-error documents of a typed index need their required fields
  notes.add({ id: 'n6' });
  // @ts-expect-error hit fields are typed: title is a string
  const wrongTitle: number | undefined = r.hits[0]?.fields.title;
  // @ts-expect-error hits have no undeclared fields
  r.hits[0]?.fields.colour;
  // @ts-expect-error storedFields names declared fields
  notes.search('x', { storedFields: ['colour'] });
  // @ts-expect-error sort names declared fields
  notes.search('x', { sort: { field: 'colour' } });
  // @ts-expect-error field weights name string fields
  notes.search('x', { fields: { priority: 2 } });
  // @ts-expect-error a stored Date is a string
  const wrongDate: Date | undefined = notes.get('n1')?.timestamp;
  // @ts-expect-error vectors have no shorthand (they need dimensions)
  await Memdex.open({ schema: { v: 'vector' } });
  // @ts-expect-error not a field type
  await Memdex.open({ schema: { tags: 'keywords' } });

  const migrated: MigrateResult = await Memdex.migrate({ from: { storage: 'fs', dir: 'memory' }, to: { language: 'french', schema: { area: 'keyword' } } });
  const migratedDocs: number = migrated.documents;
  // @ts-expect-error `to` takes the schema and analyzer options, not storage
  await Memdex.migrate({ from: { dir: 'memory' }, to: { storage: 'memory' } });
  // @ts-expect-error `from` is required
  await Memdex.migrate({ to: { language: 'none' } });

  void [plain, own, title, tags, when, warnings, n, remoteHits, wrongTitle, wrongDate, served, migratedDocs];
}

void main;
void typed;
