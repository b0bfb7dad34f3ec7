/**
 * memdex: full-text search for AI-agent memory, compiled to WebAssembly.
 *
 * ```ts
 * import { Memdex } from 'memdex';
 * const index = await Memdex.open({ name: 'notes', storage: 'indexeddb' });
 * index.add({ id: 'm1', title: 'Deploy rule', text: 'Never deploy on Fridays' });
 * const { hits } = index.search('deploying friday');
 * await index.close(); // commits pending writes
 * ```
 */

import type { StorageAdapter } from './storage.js';
export type {
  StorageAdapter,
  MemoryStorage,
  IndexedDBStorage,
  IndexedDBStorageOptions,
  FsStorage,
  KVStorage,
  KVNamespaceLike,
  IndexLockOptions,
} from './storage.js';
export { memoryStorage, withIndexLock } from './storage.js';

/** Stable error codes carried by {@link MemdexError.code}. */
export type MemdexErrorCode =
  /** A query could not be parsed (`syntax: 'strict'` only) or is not a string. */
  | 'INVALID_QUERY'
  /** A document or the schema is invalid (unknown field, wrong type, missing id), or a schema change needs `Memdex.migrate`. */
  | 'SCHEMA'
  /** A referenced document or index does not exist. */
  | 'NOT_FOUND'
  /** The storage adapter failed (quota, I/O); nothing was committed, retry. */
  | 'STORAGE'
  /** Stored bytes failed their checksum or do not decode; restore or rebuild. */
  | 'CORRUPT'
  /** Another writer committed first; call {@link Memdex.reload} and re-apply your writes. */
  | 'CONFLICT'
  /** Stored data was written by an unsupported format version. */
  | 'VERSION'
  /**
   * A size limit was exceeded (query bytes, `offset + limit`, id or field
   * size, documents nested deeper than 127 levels), or a `syntax: 'strict'`
   * search exceeded its cost budget (see {@link SearchResults.limited}).
   */
  | 'LIMIT'
  /** The .wasm file could not be fetched, read or instantiated. */
  | 'WASM_LOAD'
  /** The API was used the wrong way (unknown option, wrong argument type, `new Memdex()`). */
  | 'USAGE'
  /** The index was closed; open it again. */
  | 'CLOSED'
  /**
   * The engine hit a bug (a wasm trap) or the worker died. After a trap the
   * engine restarts: the next call re-instantiates the wasm and reloads the
   * index from storage (writes not yet committed are lost).
   */
  | 'INTERNAL'
  /** `fs` storage: another live writer process held the writer lock longer than the lock wait; see {@link MemdexError.holder}. */
  | 'LOCKED'
  /**
   * The embedder (`embed` of {@link OpenOptions}) threw, or answered other
   * than one vector of finite numbers per text fitting the vector field;
   * nothing of the call was written. `cause` is the embedder's error.
   */
  | 'EMBED'
  /** HTTP (the memdex Worker): the request is malformed (URL, JSON, NDJSON, content type); nothing was changed. */
  | 'BAD_REQUEST'
  /** HTTP (the memdex Worker): no API key, or an unknown one. */
  | 'UNAUTHORIZED'
  /** HTTP (the memdex Worker): the API key has no access to the namespace, or lacks the role. */
  | 'FORBIDDEN';

/** Every error thrown by memdex; switch on `code`, not on `message`. */
export class MemdexError extends Error {
  readonly name: 'MemdexError';
  /** Stable machine-readable code. */
  readonly code: MemdexErrorCode;
  /** For `STORAGE` errors from the adapters: a finer reason such as `'QUOTA_EXCEEDED'`. */
  readonly reason?: string;
  /**
   * For errors from {@link Memdex.addMany} and {@link Memdex.addAll}: how many documents before the
   * rejected one were added (they stay added). The rejected document is the
   * input's document number `added` counting from 0.
   */
  readonly added?: number;
  /** For `LOCKED`: the process holding the writer lock (`since`: ISO time it took it). */
  readonly holder?: { pid?: number; host?: string; since?: string };
  /**
   * For errors raised by the engine: the facts of the error as data, so a
   * caller can act on them without reading `message` (see {@link MemdexErrorData}).
   */
  readonly data?: MemdexErrorData;
  constructor(code: MemdexErrorCode, message: string, options?: { cause?: unknown });
}

/**
 * The structured facts of an engine error ({@link MemdexError.data}): the
 * fields of the engine's error variant, by `code`. A field the error does
 * not carry is absent. Switch on `code`, then read these; never parse
 * `message`.
 */
export interface MemdexErrorData {
  /** `SCHEMA`: the field (or option) at fault, e.g. `'timestamp'`. */
  field?: string;
  /** `SCHEMA`, `INVALID_QUERY`, `STORAGE`, `CORRUPT`, `USAGE`: why, in words. */
  reason?: string;
  /** `INVALID_QUERY`: byte position in the query. */
  position?: number;
  /** `LIMIT`: which limit (e.g. `'query bytes'`). */
  what?: string;
  /** `LIMIT`: the limit's value. */
  limit?: number;
  /** `LIMIT`: what was given; `VERSION`: the stored format version. */
  got?: number;
  /** `STORAGE`, `CORRUPT`: the storage key involved. */
  key?: string;
  /** `CONFLICT`: the manifest generation expected; `VERSION`: the version this build reads. */
  expected?: number;
  /** `CONFLICT`: the generation found. */
  found?: number;
  /** `NOT_FOUND`: the id that does not exist. */
  id?: string;
}

/** Analyzed full-text field. */
export interface TextFieldDef {
  type: 'text';
  /** This field's weight in BM25F, relative to the other text fields: only the ratios count, the heaviest field scores as plain BM25 (default 1; the default `title` has 2). */
  weight?: number;
  /** Stemming language for this field (default: the index `language`). */
  language?: Language;
  /** Return the original value in hits and `get` (default true). */
  stored?: boolean;
}
/** Exact-match string (or array of strings), usable in filters. */
export interface KeywordFieldDef {
  type: 'keyword';
  /** Return the value in hits (default true). */
  stored?: boolean;
}
/** Number, usable in range filters. */
export interface NumberFieldDef {
  type: 'number';
  stored?: boolean;
}
/** ISO-8601 string or epoch milliseconds, usable in range filters. */
export interface DateFieldDef {
  type: 'date';
  stored?: boolean;
}
/** Boolean, usable in filters. */
export interface BooleanFieldDef {
  type: 'boolean';
  stored?: boolean;
}
/** Stored and returned, never indexed. */
export interface StoredFieldDef {
  type: 'stored';
}
/**
 * Fixed-length embedding for vector and hybrid search. Documents carry it as
 * a `Float32Array` or a number array of exactly `dimensions` finite numbers
 * (anything else throws `SCHEMA` naming the field and the document); memdex
 * never computes embeddings. Not part of the stored fields: hits do not
 * carry it, and `get` returns it with `{ vectors: true }` only (unit length
 * on cosine fields); {@link Memdex.patch} keeps it.
 */
export interface VectorFieldDef {
  type: 'vector';
  /** Length of every vector (1 to 4096). */
  dimensions: number;
  /**
   * `'cosine'` (default): vectors are normalized to unit length when added
   * (an all-zero vector throws `SCHEMA`), scores are cosines in [-1, 1].
   * `'dot'`: raw dot product, vectors kept as given.
   */
  metric?: 'cosine' | 'dot';
  /**
   * `'int8'`: search scans one byte per dimension (about 3x faster, built in
   * memory on first search, not persisted) and rescores the best
   * `max(10 * (offset + limit), 100)` in f32, so scores stay exact; recall
   * against the exact scan was 1.0 at top 10 on 100k random 384-dimension
   * vectors. `'none'` (default): exact f32 scan.
   */
  quantize?: 'none' | 'int8';
}
/**
 * Typed edges to other documents: the document holds
 * `[{ type: 'DEPENDS_ON', to: 'c2' }, ...]` (non-empty strings, no other
 * keys, at most 1,024; else `SCHEMA`). Stored, and followed by
 * {@link SearchOptions.expand} and {@link Memdex.related}; not filterable.
 */
export interface LinksFieldDef {
  type: 'links';
}
/** A field of the schema. */
export type FieldDef =
  | TextFieldDef
  | KeywordFieldDef
  | NumberFieldDef
  | DateFieldDef
  | BooleanFieldDef
  | StoredFieldDef
  | VectorFieldDef
  | LinksFieldDef;

/**
 * A field type by name alone, with its default options: `'text'`,
 * `'keyword'`, `'number'`, `'date'`, `'boolean'`, `'stored'` (vectors need
 * their dimensions: declare them as an object).
 */
export type FieldType = Exclude<FieldDef['type'], 'vector'>;

/**
 * Field definitions by name (`id` and `namespace` are reserved), each a
 * {@link FieldDef} or its type name alone: `{ tags: 'keyword', title: { type: 'text', weight: 3 } }`.
 */
export type Schema = Record<string, FieldDef | FieldType>;

/** Snowball stemmer languages, or `'none'` (no stemming). Only `'english'` and `'none'` exist in an English-only wasm (the lexical build, `memdex-english_bg.wasm`). */
export type Language =
  | 'none'
  | 'arabic'
  | 'danish'
  | 'dutch'
  | 'english'
  | 'finnish'
  | 'french'
  | 'german'
  | 'greek'
  | 'hungarian'
  | 'italian'
  | 'norwegian'
  | 'portuguese'
  | 'romanian'
  | 'russian'
  | 'spanish'
  | 'swedish'
  | 'tamil'
  | 'turkish'
  | (string & {});

/** Text analysis options (applied identically at index and query time). */
export interface AnalyzerOptions {
  /** Stemming language (default `'english'`). */
  language?: Language;
  /** Fold diacritics (`café` matches `cafe`; default true). */
  foldDiacritics?: boolean;
  /** Use the language's Snowball stopword list (default true). */
  defaultStopwords?: boolean;
  /** Replace the stopword list entirely. */
  stopwords?: string[];
  /** Words added to the stopword list. */
  addStopwords?: string[];
  /** Words removed from the stopword list. */
  removeStopwords?: string[];
}

/**
 * When to commit automatically (persistent storage only). In browsers an
 * index with auto-commit also commits when its page is hidden or unloaded
 * (`visibilitychange`, `pagehide`; best effort: the browser may end the page
 * before the IndexedDB transaction completes, so `await commit()` what must
 * not be lost).
 */
export interface AutoCommitOptions {
  /** Commit after this many milliseconds without writes (default 1000). */
  delayMs?: number;
  /** No write waits longer than this for its commit, even under a steady stream of writes (default 2000, at least `delayMs`). */
  maxDelayMs?: number;
  /** Commit as soon as this many writes are pending (default 100). */
  maxWrites?: number;
}

/** What {@link Memdex.recover} rebuilt. */
export interface RecoveryReport {
  /** Segments in the rebuilt manifest. */
  segments: number;
  /** Live documents of the recovered index. */
  documents: number;
  /** Blob keys left out: damaged, incomplete, or from commits that never finished. */
  skipped: string[];
}

/** Options of {@link Memdex.migrate}. */
export interface MigrateOptions {
  /** Where the index is: `storage`, `dir`, `database`, `name`, `wasm` (its stored schema is read; other keys are ignored). */
  from: Pick<OpenOptions, 'name' | 'storage' | 'dir' | 'database' | 'wasm'>;
  /**
   * The rebuilt index: `schema` fields replace or join the stored ones
   * (`defaultSchema: false`: `schema` is the whole field list, fields it
   * leaves out are dropped from every document); `language`, `analyzer`,
   * `k1`, `b` replace the stored ones. `name`: build a new index of that
   * name (which must not exist) and leave the old one as it is; default:
   * replace the index in place.
   */
  to: Pick<OpenOptions, 'name' | 'schema' | 'defaultSchema' | 'language' | 'analyzer' | 'k1' | 'b'>;
}

/** What {@link Memdex.migrate} wrote. */
export interface MigrateResult {
  /** The rebuilt index's name. */
  name: string;
  /** Its live documents. */
  documents: number;
  /** Its generation (the commit that stored it). */
  generation: number;
}

/** Options of {@link Memdex.open}. All optional. */
export interface OpenOptions {
  /** Index name: the key prefix in storage; several indexes can share one storage (default `'memdex'`). */
  name?: string;
  /**
   * Where commits go:
   * - `'memory'` (default): nothing persists beyond the process; auto-commit is off.
   * - `'indexeddb'` (browsers): database `database` (default `'memdex'`).
   * - `'fs'` (Node): files under `dir`.
   * - any adapter object `{ get, put, delete, list, swap }` (e.g. `kvStorage(env.KV)`; see `memdex/storage`).
   */
  storage?: 'memory' | 'indexeddb' | 'fs' | StorageAdapter;
  /** Directory for `storage: 'fs'`. */
  dir?: string;
  /** IndexedDB database name for `storage: 'indexeddb'` (default `'memdex'`). */
  database?: string;
  /**
   * Fields of a new index, added to the default schema: `title` (text,
   * weight 2), `text` (text), `kind` and `tags` (keyword), `timestamp`
   * (date), `links` (links: typed edges followed by `expand`). A field named like a default one replaces it;
   * `defaultSchema: false` starts from no fields instead. Indexes created
   * before `tags` and `links` were added keep their own schema (indexes created
   * before format 3 have `links` as `stored`: they open and keep their links,
   * but `expand` does not follow them). When opening
   * a stored index, the fields `schema` names upgrade its stored schema in
   * place when they can: new fields of any type, a text field's `weight`, a
   * vector field's `quantize` (with `k1` and `b`); documents keep what they
   * had and gain new fields when next written; the next commit stores the
   * upgrade. Stored fields it leaves out are kept. Any other change (the
   * analyzer or a field's language, type, `stored`, dimensions or metric)
   * is `SCHEMA` with `data.field` and `data.change`: rebuild with
   * {@link Memdex.migrate}.
   * @example { schema: { priority: 'number', pinned: 'boolean' } }
   */
  schema?: Schema;
  /**
   * `false`: `schema` is the whole field list (no default fields), as in
   * MiniSearch's `fields` or Orama's `schema`. Default `true`.
   */
  defaultSchema?: boolean;
  /** Shorthand for `analyzer.language` (default `'english'`). */
  language?: Language;
  /** Text analysis options. */
  analyzer?: AnalyzerOptions;
  /** BM25 term-frequency saturation (default 1.2). */
  k1?: number;
  /** BM25 length normalisation, 0..1 (default 0.75). */
  b?: number;
  /**
   * Commit automatically after writes: `{ delayMs, maxDelayMs, maxWrites }`, `true`
   * (defaults) or `false`. Default: on for persistent storage, off for `'memory'`.
   */
  autoCommit?: AutoCommitOptions | boolean;
  /** Receives auto-commit failures (default: `console.error`). */
  onError?: (error: MemdexError) => void;
  /**
   * Where to get the engine: a URL, a fetch `Response`, raw bytes or a compiled
   * `WebAssembly.Module`, loaded as is. Defaults: in browsers
   * `memdex-english_bg.wasm` next to the package, and `memdex_bg.wasm`
   * (every language) once an index needs another language (README,
   * "Languages: two wasm files"); `memdex_bg.wasm` read from disk in Node,
   * imported in workerd. Only the first call of a page or process loads it.
   */
  wasm?: URL | string | Response | BufferSource | WebAssembly.Module;
  /**
   * Embeds documents and queries for you: documents that carry no vector
   * in `field` are embedded before they are added, and a `semantic` (or
   * `hybrid`) search without a `vector` embeds its query. The writes and
   * searches that may embed then return Promises: see {@link EmbeddingMemdex}.
   * A function is `{ embed: fn }`.
   *
   * ```ts
   * const index = await Memdex.open({
   *   schema: { embedding: { type: 'vector', dimensions: 384 } },
   *   embed: { field: 'embedding', embed: async (texts) => model.embed(texts) },
   * });
   * await index.add({ id: 'm1', title: 'Deploy rule', text: 'Never deploy on Fridays' });
   * const { hits } = await index.search('when can we ship?', { semantic: 'hybrid' });
   * ```
   */
  embed?: EmbedOptions | Embed;
  /**
   * Keeps stored fields packed in memory (deflated pages of about 128 KiB, as
   * they are stored) and unpacks the pages that reads need, holding at most
   * this many bytes of unpacked pages (least recently used evicted first).
   * Results are the same; the index takes less memory (the packages corpus's
   * stored fields pack to about 40 %), and a read of a page not held unpacks it
   * (up to 0.4 ms in wasm, the page up to that row: size the cache to the pages your searches touch).
   * Default: stored fields unpacked (no cache). `0` keeps no page.
   * {@link Stats.cache} reports the cache.
   * With `lazy`: the bytes of fetched index parts held between searches (default 32 MiB).
   */
  cacheBytes?: number;
  /**
   * Opens a committed index lazily: reads its manifest, segment heads and
   * document ids only, and fetches the term shards, stored-field pages and
   * typo words each search needs from `storage` while it searches (then
   * holds them, up to `cacheBytes`). Open time and memory follow what
   * searches touch, not the index's size; answers are the same as a full
   * open's. The index is read-only and every method is async: see
   * {@link LazyMemdex}. Schema, analyzer, `autoCommit`, `embed` and
   * `onError` do not apply (`USAGE`); nothing stored under `name` is `NOT_FOUND`.
   *
   * `'auto'`: lazily when the committed index is larger than
   * `lazyAboveBytes`, else (or when nothing is stored) opened whole, as
   * without `lazy`; tell which by `index.lazy === true`. `autoCommit` and
   * `onError` then apply to an index opened whole.
   */
  lazy?: boolean | 'auto';
  /**
   * With `lazy: 'auto'`: committed bytes above which the index opens
   * lazily (default 64 MiB, about 450k short documents).
   */
  lazyAboveBytes?: number;
}

/** An embedding function: one vector (`dimensions` finite numbers) per text, in order. */
export type Embed = (texts: string[]) => Promise<ArrayLike<number>[]> | ArrayLike<number>[];

/** The `embed` option of {@link OpenOptions}. */
export interface EmbedOptions<Doc = MemdexDocument> {
  /** The model: one vector per text, in order. Its errors, and answers of the wrong count, length or numbers, are `EMBED`. */
  embed: Embed;
  /** The vector field it fills; may be left out when the schema has exactly one. */
  field?: string;
  /**
   * What is embedded: fields joined with `". "` (default `['title', 'text']`,
   * blank ones skipped), or a function of the document. A document whose
   * text is blank is added without a vector.
   */
  text?: (keyof FieldsOf<Doc> & string)[] | ((doc: Input<Doc>) => string);
  /** Texts per call of `embed` (default 32). */
  batchSize?: number;
  /** Calls of `embed` running at once (default 2). */
  concurrency?: number;
}

/** What {@link Memdex.import} reads: `export()` bytes, or `exportStream()`'s parts. */
export type SnapshotSource = Uint8Array | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | Iterable<Uint8Array>;

/** Options of {@link Memdex.import}: where the imported index lives. */
export type ImportOptions = Pick<OpenOptions, 'name' | 'storage' | 'dir' | 'database' | 'autoCommit' | 'onError' | 'wasm' | 'embed' | 'cacheBytes'>;

/**
 * Options of {@link Memdex.openInWorker}: as {@link OpenOptions}, with
 * storage given by name. `embed` runs on the calling side (a function
 * cannot cross into the worker): documents and queries are embedded here,
 * then sent with their vectors.
 */
export interface WorkerOpenOptions extends Omit<OpenOptions, 'storage' | 'onError' | 'lazy' | 'lazyAboveBytes'> {
  /** {@link OpenOptions.lazy}; `'auto'` is for `Memdex.open` only (`USAGE` here). */
  lazy?: boolean;
  /** `'memory'` (default) or `'indexeddb'`; adapter objects cannot cross into a worker. */
  storage?: 'memory' | 'indexeddb';
  /** Use this worker instead of a new one running the package's `worker.js`. */
  worker?: Worker;
}

/** A document. `id` is required; other keys must be declared in the schema. */
export interface MemdexDocument {
  /** External id; adding a document with an existing id replaces it. */
  id: string;
  /** Tenant / agent / repo:branch the document belongs to. */
  namespace?: string;
  [field: string]: unknown;
}

/** A memory in the default schema. */
export interface Memory extends MemdexDocument {
  title?: string;
  text?: string;
  kind?: string;
  /** Labels for filtering (keyword field: exact values). */
  tags?: string[];
  /** Typed edges to other memories, e.g. `[{ type: 'SUPERSEDES', to: 'm1' }]` (stored, not indexed). */
  links?: { type: string; to: string }[];
  /** ISO-8601 string, epoch milliseconds or a `Date` (stored as its ISO string). */
  timestamp?: string | number | Date;
}

/**
 * The shape a typed index's documents must have ({@link Memdex.open}'s
 * type argument): an `id` and an optional `namespace`.
 */
export interface DocumentShape {
  id: string;
  namespace?: string;
}

/**
 * A document as stored and returned (`get`, `hit.fields`): what JSON keeps
 * of it. A `Date` comes back as its ISO-8601 string, a vector (a
 * `Float32Array`, returned by `get(id, { vectors: true })` only) as a
 * number array.
 */
export type Stored<T> = T extends Date
  ? string
  : T extends ArrayBufferView
    ? number[]
    : T extends (infer U)[]
      ? Stored<U>[]
      : T extends object
        ? { [K in keyof T]: Stored<T[K]> }
        : T;

/**
 * What the write methods take for a document type: each field as the type
 * declares it or as {@link Stored} returns it (a date as its ISO string, a
 * vector as a number array; the engine reads both), so what `get` returns
 * can be written back: `index.add({ ...index.get(id, { vectors: true })!, text })`.
 */
export type Input<Doc> = { [K in keyof Doc]: Doc[K] | Stored<Doc[K]> };

/**
 * The changes of {@link Memdex.patch}: the fields to set, each as `add`
 * takes it; `null` removes an optional field; a field left out (or
 * `undefined`) keeps its stored value. `id` cannot change.
 */
export type Changes<Doc = MemdexDocument> = {
  [K in keyof Omit<Doc, 'id'>]?: Input<Doc>[K] | ({} extends Pick<Doc, K> ? null : never);
};

/** Options of {@link Memdex.get}. */
export interface GetOptions {
  /**
   * Also return the document's vectors, each under its vector field's name
   * as an array of `dimensions` numbers: as given on `metric: 'dot'`
   * fields, at unit length on cosine fields (the form they are stored and
   * searched in: added back, they rank the same). Default `false`.
   */
  vectors?: boolean;
}

/** The fields of a document type other than `id` and `namespace`. */
export type FieldsOf<Doc> = Omit<Doc, 'id' | 'namespace'>;

/** A date bound: an ISO-8601 string, epoch milliseconds or a `Date`. */
export type DateBound = string | number | Date;

/** What a filter accepts for a field of value type `V` (see {@link Filter}). */
export type FilterValue<V> = [unknown] extends [V]
  ? string | string[] | number | boolean | Date | RangeFilter | { prefix: string | string[] }
  : FilterValueOf<NonNullable<V>>;
type FilterValueOf<V> = [V] extends [string]
  ? string extends V
    ? string | string[] | Date | RangeFilter<DateBound>
    : V | V[] // a union of literals: only those values
  : [V] extends [readonly (infer E)[]]
    ? [E] extends [string]
      ? string extends E
        ? string | string[]
        : E | E[]
      : never
    : FilterValueEach<V>;
type FilterValueEach<V> = V extends boolean
  ? boolean
  : V extends number
    ? number | RangeFilter<number>
    : V extends Date
      ? DateBound | RangeFilter<DateBound>
      : V extends string
        ? string | string[] | Date | RangeFilter<DateBound>
        : V extends readonly string[]
          ? string | string[]
          : never;

/** A namespace condition: one, any of several, a trailing `*` (`'repo:*'`) or `{ prefix }`. */
export type NamespaceFilter = string | string[] | { prefix: string | string[] };

/**
 * Range condition on a number or date field. Dates: ISO-8601 strings or
 * epoch ms. A date-only string (`'2026-03-15'`, UTC) covers its whole day:
 * `lte` keeps the whole day, `gt` starts after it, and `{ timestamp:
 * '2026-03-15' }` matches any time that day.
 */
export interface RangeFilter<B = DateBound> {
  gt?: B;
  gte?: B;
  lt?: B;
  lte?: B;
}

/**
 * Structural filter, applied before ranking. Keys are field names; all
 * conditions must hold.
 * - `namespace`: one namespace, any of several, or every namespace under a
 *   prefix for hierarchical names: `'repo:*'` (a trailing `*`) or
 *   `{ prefix: 'repo:webapp/' }`.
 * - keyword fields: a value or any of several values.
 * - number / date fields: a value (equality) or a {@link RangeFilter}. Dates
 *   may be `Date` objects (sent as their ISO string).
 * - boolean fields: `true` / `false`.
 *
 * With a document type (`Memdex.open<Note>()`) only its fields are keys and
 * each takes values of its type.
 */
export type Filter<Doc = MemdexDocument> = { namespace?: NamespaceFilter } & {
  [K in keyof FieldsOf<Doc>]?: FilterValue<FieldsOf<Doc>[K]>;
};

/** Highlighting of matched terms in snippets. */
export interface HighlightOptions {
  /** Inserted before a matched term (default `<mark>`); at most 64 bytes (UTF-8), else `LIMIT`. */
  preTag?: string;
  /** Inserted after a matched term (default `</mark>`); at most 64 bytes (UTF-8), else `LIMIT`. */
  postTag?: string;
  /** Approximate snippet length in characters (default 160, at most 2,000, else `LIMIT`). */
  snippetLength?: number;
}

/** The keys of a document type with string values (its possible text fields). */
type StringKeys<Doc> = {
  [K in keyof FieldsOf<Doc>]-?: NonNullable<FieldsOf<Doc>[K]> extends string ? K : never;
}[keyof FieldsOf<Doc>] &
  string;

/** Options of {@link Memdex.search}. */
export interface SearchOptions<Doc = MemdexDocument> {
  /**
   * `or` (default): any term, documents with more and rarer terms first (measured best for questions in
   * plain language, BENCHMARKS.md); `and`: all terms; `fallback`: AND, then OR if AND finds fewer than `minHits`.
   */
  mode?: 'or' | 'and' | 'fallback';
  /**
   * `lenient` (default) never throws on user text: malformed syntax degrades
   * to plain terms, and a query over its cost budget is answered with what
   * the budget allowed, flagged in {@link SearchResults.limited}. `strict`
   * throws `INVALID_QUERY` with the position of the error, and `LIMIT` when
   * the query exceeds its budget.
   */
  syntax?: 'lenient' | 'strict';
  /**
   * Number of hits to return (default 10). `offset + limit` is at most
   * 10,000 (`LIMIT`). The answer's stored fields, snippets and explanations
   * hold at most 8 MiB: hits past that are left out (`'answer'` in
   * {@link SearchResults.limited}).
   */
  limit?: number;
  /** Number of hits to skip, for paging (default 0). */
  offset?: number;
  /** For `mode: 'fallback'`: fall back to OR when AND finds fewer hits than this (default 1). */
  minHits?: number;
  /** Search only these text fields, each with a weight override, e.g. `{ title: 3 }`. */
  fields?: Partial<Record<StringKeys<Doc>, number>>;
  /** Structural filter (namespace, keywords, ranges, booleans). */
  filter?: Filter<Doc>;
  /** Treat each bare term as a prefix too (search-as-you-type). */
  prefix?: boolean;
  /**
   * Typo tolerance for each bare term: the most edits (insertions,
   * deletions, substitutions, and swaps of two adjacent letters) between
   * what was typed and a word of the index (words as written, then their
   * stems). `'auto'` or `true`: by word length (none below 4 letters, 1 up
   * to 7, 2 from 8). A match at distance d scores 0.5^d of an exact one.
   * Default 0 (off).
   */
  fuzzy?: 0 | 1 | 2 | 'auto' | boolean;
  /** Return HTML-escaped snippets with highlight tags (`true` = default tags). */
  highlight?: HighlightOptions | boolean;
  /** Attach a per-term score breakdown to every hit. */
  explain?: boolean;
  /** Per-query BM25 k1 override. */
  k1?: number;
  /** Per-query BM25 b override. */
  b?: number;
  /**
   * Stored fields each hit carries in `fields`: `true` (default) all of them,
   * `false` none (ids, scores, matched terms, namespace and snippets only: the
   * cheapest answer when you hold the documents yourself), or a list of
   * stored field names. Naming a field that is not stored throws `SCHEMA`.
   */
  storedFields?: boolean | (keyof FieldsOf<Doc> & string)[];
  /**
   * Order hits by a number, date, boolean or keyword field instead of by
   * score, e.g. `{ field: 'timestamp', order: 'desc' }` (newest first;
   * `order` defaults to `'asc'`). Ties break by id ascending; documents
   * without a value come last in either order; a keyword field with several
   * values sorts by its smallest value ascending and its largest descending.
   * Every match is visited (no pruning by score), so results carry `total`.
   * Sorting by another kind of field throws `SCHEMA`.
   *
   * With a blank query (`''` or whitespace) and a `sort` or a `filter`, the
   * search is a listing: every document the filter allows (all documents
   * when it is `{}` or absent), score 0, by `sort` or else by id. A blank
   * query with neither still returns no hits.
   *
   * ```ts
   * // the 20 most recent memories of a namespace
   * index.search('', { filter: { namespace: 'agent:coder' }, sort: { field: 'timestamp', order: 'desc' }, limit: 20 });
   * ```
   */
  sort?: SortOptions<Doc>;
  /**
   * Query embedding (a `Float32Array`, handed to the engine as floats, or a
   * number array) of the vector field's `dimensions`. With a blank query:
   * pure vector search (hits by similarity; `filter` applies before
   * ranking). With a query string: hybrid search, see `hybrid`. Cannot be
   * combined with `sort`. The lexical build (`memdex/lexical`) answers it
   * with `USAGE`.
   *
   * ```ts
   * index.search('deploy friday', { vector: embedding, hybrid: { method: 'rrf' } });
   * ```
   */
  vector?: Float32Array | number[];
  /** The vector field to search; may be left out when the schema has exactly one. */
  vectorField?: string;
  /** How a hybrid search (query string + `vector`) fuses its two lists; defaults apply when omitted. */
  hybrid?: HybridOptions;
  /**
   * Search by meaning without computing the `vector` yourself: the query is
   * embedded with the index's embedder (`embed` of {@link OpenOptions}; one
   * call). `'hybrid'`: fused with the word search as `hybrid` is;
   * `'vector'`: ranked by the embedding alone. With a `vector` given, it is
   * used as is. Without an embedder and a `vector`, the search is answered
   * by words alone and says so ({@link SearchResults.semantic} `'lexical'`,
   * and a line of {@link SearchResults.warnings}). On an index with an embedder, a
   * `hybrid` search without a `vector` embeds its query too.
   */
  semantic?: 'hybrid' | 'vector';
  /**
   * Term proximity (off by default): the best candidates of the BM25F
   * ranking (`depth`, default twice `offset + limit`) are reordered with a
   * bonus for documents where the query's words stand close together
   * (BM25TP-style: each pair of distinct query terms within `window`
   * positions (default 5) adds `1/d²`, saturated like a term frequency,
   * weighted by the rarer term's idf and by `weight`, default 0.25).
   * `true` uses the defaults. Measured: nDCG@10 +0.002 on Cranfield and
   * +0.009 on CISI, for +24 % query p50 at 100k documents (BENCHMARKS.md),
   * hence opt-in. Ignored with `sort` and for one-word queries. Hit
   * scores include the bonus; `explain` lists the BM25F parts only.
   */
  proximity?: boolean | ProximityOptions;
  /**
   * `'auto'`: a small rule set chooses the search mode (and proximity) from
   * the query, and `results.strategy` says what it chose and why.
   * Quoted text (`"…"`), code-like words (camelCase, snake_case, paths,
   * file names, versions, `a::b`, `f()`, `#123`, `--flag`) and short queries
   * (at most 3 words, no question word, no `?`) use `fallback` (AND, or OR
   * when AND finds nothing); other text is a natural-language question:
   * `or` with proximity. A relation question ("what depends on X",
   * "related to X", "linked to X") searches for `X` and adds the memories
   * linked to its hits, one hop both ways (`expand: { hops: 1, direction:
   * 'both' }`, unless `expand` is given; the lexical build searches for `X`
   * only). A `vector` makes it a hybrid
   * search. `mode` is ignored;
   * every other option applies as given. Default `'none'`: options as given.
   *
   * ```ts
   * const r = index.search('what depends on authClient', { strategy: 'auto' });
   * r.strategy; // { name: 'auto', reason: 'identifier', mode: 'fallback', proximity: false, expand: { hops: 1 }, query: 'authClient' }
   * ```
   */
  strategy?: 'none' | 'auto';
  /**
   * Adds the documents linked to the hits (links fields), each scored
   * `parentScore / (1 + hops)` and carrying {@link Hit.via}. A document that
   * is already a hit keeps the better of its two scores; links to missing or
   * deleted ids are dropped. Added documents come on top of `limit`: at
   * most {@link ExpandOptions.limit} of them (default 10), only in the
   * namespaces the search's `filter` allows, following at most 100,000 edges
   * (`'expand'` in {@link SearchResults.limited}). The result is re-sorted by
   * score. `true` means `{ hops: 1 }`. Not in the lexical build
   * (`memdex/lexical`: `USAGE`).
   *
   * ```ts
   * index.search('postgres', { expand: { hops: 2, types: ['DEPENDS_ON'], direction: 'out' } });
   * ```
   */
  expand?: boolean | ExpandOptions;
  /**
   * Decays scores by age: `score * ((1 - weight) + weight * 0.5 ** (age / halfLife))`
   * with `age = max(0, now - doc[field])`. Documents without the field get
   * the full decay (`1 - weight`); documents `exempt` allows never decay.
   * Applied inside the top-k, so the ranking is exact. Off by default.
   */
  recency?: RecencyOptions<Doc>;
  /**
   * Maximal marginal relevance over the top `max(3 * (offset + limit), 50)`
   * candidates: each next hit maximizes
   * `lambda * score / topScore - (1 - lambda) * maxSimilarity(hit, picked)`,
   * similarity being the cosine of the hits' vectors when the index has a
   * vector field (`vectorField`, or its only one), else the word overlap
   * (Jaccard) of title + text. Scores are kept; only the order changes. A
   * number is `lambda`; `true` is 0.7. Only the places up to
   * `offset + limit` are picked; diversity and dedupe together make at most
   * 4M comparison steps (a comparison costs the smaller word set's size), and
   * past that the rest keeps its score order (`'rerank'` in
   * {@link SearchResults.limited}). Deep pages (`offset` in the thousands)
   * therefore get diversity only at their top. Not in the lexical build
   * (`memdex/lexical`: `USAGE`).
   */
  diversity?: boolean | number | { lambda?: number };
  /**
   * Collapses hits whose title + text are equal after lowercasing and
   * dropping punctuation, or whose vectors have a cosine of at least 0.97
   * (when the index has a vector field), into the best-ranked one, which lists the others'
   * ids in {@link Hit.duplicates} (over the same candidate pool as `diversity`).
   * Not in the lexical build (`memdex/lexical`: `USAGE`).
   */
  dedupe?: boolean;
  /**
   * How many matches `total` counts exactly (Elasticsearch's
   * `track_total_hits`; default 10,000): while fewer are counted, the
   * search visits every match; past it, `total` is a lower bound and
   * `totalExact` false. `true` counts every match, `false` nothing beyond
   * what the ranking visits (the cheapest).
   */
  trackTotal?: number | boolean;
}

/** Tuning of {@link SearchOptions.proximity}. */
export interface ProximityOptions {
  /** Multiplier of the bonus (default 0.25; 0 turns it off). */
  weight?: number;
  /** Largest distance in positions between two words that counts (1-64, default 5). */
  window?: number;
  /** Candidates reordered (at most 1,000; default twice `offset + limit`). */
  depth?: number;
}

/** What `strategy: 'auto'` chose ({@link SearchResults.strategy}). */
export interface StrategyChoice {
  name: 'auto';
  /** Which rule decided the mode. */
  reason: 'quoted' | 'identifier' | 'short' | 'natural-language';
  /** The mode chosen (`results.mode` says which of AND/OR produced the hits). */
  mode: 'or' | 'and' | 'fallback';
  /** Whether the proximity rerank was on. */
  proximity: boolean;
  /** Link expansion asked for by a relation question. */
  expand?: { hops: number };
  /** Hybrid lexical + vector fusion (a `vector` was given). */
  hybrid?: boolean;
  /** The text searched, when the rules rewrote the query (relation words removed). */
  query?: string;
}

/**
 * Fusion of {@link SearchOptions.hybrid}. The lexical search (same mode,
 * fields and filter) and the vector search each return `candidates` (at
 * least `offset + limit`) hits; a hit found by only one of them stays
 * eligible. Each hit reports its place in each list (`hit.lexical`,
 * `hit.vector`).
 */
export interface HybridOptions {
  /**
   * How the lexical and the vector list combine (BENCHMARKS.md, "Fusion by
   * evidence"; a hit in one list only stays eligible under every method).
   * - `'zscore'` (default): each list's scores standardized
   *   (`(s - mean) / deviation`), score = `alpha * vector + (1 - alpha) * lexical`,
   *   a list lacking the hit counting its lowest (-1 if its scores are all
   *   equal). Above the better single list on Cranfield, CISI and an
   *   agent-memory set with `alpha` 0.5: the choice when both lists carry
   *   signal.
   * - `'weighted'`: the same sum of min-max normalized scores ([0, 1], a
   *   missing hit 0); close to `zscore`, a little below it in the sweep.
   * - `'rrf'`: reciprocal rank fusion, score = sum over the lists holding
   *   the hit of `1 / (k + rank)`; ignores score scales, so it suits lists
   *   whose scores mean nothing together (a foreign vector score, a custom
   *   ranking), but it trails the better single list when one list is much
   *   stronger (an agent's memories: −0.048 nDCG@10 against vector only).
   */
  method?: 'zscore' | 'weighted' | 'rrf';
  /** RRF rank constant (default 60). */
  k?: number;
  /** Weight of the vector list in `zscore` and `weighted` (0 to 1, default 0.5). */
  alpha?: number;
  /** Candidates taken from each list (1 to 10,000, default 100). */
  candidates?: number;
}

/** A hit's place in one list of a vector or hybrid search. */
export interface FoundBy {
  /** Rank in that list, from 1. */
  rank: number;
  /** Score in that list: BM25F for the lexical list, the similarity for the vector list. */
  score: number;
}

/** Link traversal of {@link SearchOptions.expand} and {@link Memdex.related}. */
export interface ExpandOptions {
  /** Edges to follow from each hit, 1 to 3 (default 1). */
  hops?: number;
  /** Only links of these types (default: all). */
  types?: string[];
  /** `'out'` (default): what the hit links to; `'in'`: what links to it; `'both'`. */
  direction?: 'out' | 'in' | 'both';
  /**
   * At most this many documents (default 10, at most 10,000): the answer of
   * {@link Memdex.related}, or the documents `expand` adds to a search's hits.
   */
  limit?: number;
}

/** Options of {@link Memdex.related}. */
export type RelatedOptions = ExpandOptions;

/** {@link SearchOptions.recency}. */
export interface RecencyOptions<Doc = MemdexDocument> {
  /** A date or number field (default `'timestamp'`). */
  field?: string;
  /** Milliseconds, or `'30s'`, `'15m'`, `'12h'`, `'30d'`, `'2w'` (default `'30d'`). */
  halfLife?: number | string;
  /** 0 (no decay) to 1 (full decay), default 0.5. */
  weight?: number;
  /** Documents this filter allows never decay, e.g. `{ kind: 'rule' }`. */
  exempt?: Filter<Doc>;
  /** The "now" ages are measured from, epoch ms (default: the clock when the search runs). */
  now?: number;
}

/** How {@link SearchOptions.expand} reached a hit. */
export interface Via {
  /** The hit the traversal started from. */
  from: string;
  /** Type of the last link followed. */
  type: string;
  /** Links from `from`. */
  hops: number;
}

/** Options of {@link Memdex.pack}: search options plus the budget. */
export interface PackOptions<Doc = MemdexDocument> extends SearchOptions<Doc> {
  /** Most tokens the packed text may use (positive integer). */
  budgetTokens: number;
  /** Token counter; default `Math.ceil(text.length / 4)`. */
  countTokens?: (text: string) => number;
}

/** Result of {@link Memdex.pack}. */
export interface PackResult<Doc = MemdexDocument> {
  /**
   * The hits rendered best first, one block each:
   * `[n] Title (kind, timestamp) id=ID` then the stored text (or the first
   * snippet), blocks separated by a blank line.
   */
  text: string;
  /** The hits in `text`. */
  hits: Hit<Doc>[];
  /** Ids of the hits whose text was cut to fit (ends with `…`). */
  truncated: string[];
  /** Hits of the search (default limit 20) left out: not even a 40-character part fitted. */
  omitted: number;
  /** `'empty-index'`: nothing stored; `'no-match'`: nothing relevant; else `'ok'`. */
  reason: 'ok' | 'no-match' | 'empty-index';
  /** `countTokens(text)`, never above `budgetTokens`. */
  usedTokens: number;
}

/** Field order of {@link SearchOptions.sort}. */
export interface SortOptions<Doc = MemdexDocument> {
  /** A number, date, boolean or keyword field of the schema. */
  field: keyof FieldsOf<Doc> & string;
  /** `'asc'` (default) or `'desc'`. */
  order?: 'asc' | 'desc';
}

/** One term's contribution to a hit's score (`explain: true`). */
export interface TermExplanation {
  /** Index term (analyzed). */
  term: string;
  /** Field it matched in. */
  field: string;
  /** Inverse document frequency. */
  idf: number;
  /** Term frequency in the field. */
  tf: number;
  /** Length of the field in this document (positions). */
  fieldLength: number;
  /** Average length of the field over the index. */
  avgFieldLength: number;
  /** Field weight divided by the largest searched field's weight, times the term's boost. */
  weight: number;
  /** This term's share of the score. */
  score: number;
}

/** One search result. */
export interface Hit<Doc = MemdexDocument> {
  /** Document id. */
  id: string;
  /**
   * BM25F score (higher is better); ties are broken deterministically. For
   * a pure vector search the similarity, for a hybrid search the fused score.
   */
  score: number;
  /** The document's namespace, if any. */
  namespace?: string;
  /** Stored fields of the document (those `storedFields` asked for; dates as ISO strings). */
  fields: Partial<Stored<FieldsOf<Doc>>>;
  /** Index terms (analyzed, e.g. stemmed) of the query found in this document. */
  matchedTerms: string[];
  /** Field name -> highlighted, HTML-escaped snippet, when `highlight` was asked for. */
  snippets?: Record<string, string>;
  /** Score breakdown, when `explain` was asked for. */
  explanation?: TermExplanation[];
  /** Vector and hybrid searches: the hit's rank and BM25F score in the lexical list, when it was there. */
  lexical?: FoundBy;
  /** Vector and hybrid searches: the hit's rank and similarity in the vector list, when it was there. */
  vector?: FoundBy;
  /** How {@link SearchOptions.expand} (or {@link Memdex.related}) reached this document. */
  via?: Via;
  /** With {@link SearchOptions.dedupe}: ids of the near-duplicates collapsed into this hit. */
  duplicates?: string[];
}

/** Result of {@link Memdex.search}. */
export interface SearchResults<Doc = MemdexDocument> {
  /** Ranked hits, best first (or in `sort` order). */
  hits: Hit<Doc>[];
  /** The mode that produced `hits` (`fallback` resolves to `and` or `or`). */
  mode: 'or' | 'and';
  /**
   * Matches before `offset` and `limit`: exact for listings, sorted
   * searches and every search with at most `trackTotal` (10,000) matches;
   * past that a lower bound, and `totalExact` is false. Hybrid and vector
   * searches carry none.
   */
  total?: number;
  /** Whether `total` counts every match (like Elasticsearch's `total.relation: 'eq'`). */
  totalExact?: boolean;
  /**
   * A `semantic` search (or one whose query was embedded): what ranked the
   * hits. `'lexical'`: no embedder and no `vector`, so words alone.
   */
  semantic?: 'hybrid' | 'vector' | 'lexical';
  /** Time the search took in the engine call, milliseconds (fractional). */
  tookMs?: number;
  /**
   * Present only when the query hit its cost budget (lenient syntax; strict
   * throws `LIMIT` instead) and `hits` is a partial answer: which budgets ran
   * out. Every search is bounded, so a few KB of query cannot cost seconds:
   * - `'expansions'`: prefix (`dep*`) and fuzzy (`dpeloy~2`) terms expand to
   *   at most 1,024 index terms per query, shared equally (each term keeps at
   *   most its 64 most frequent, so up to 16 expanding terms are never cut),
   *   and the dictionary walks that find them are bounded too;
   * - `'scoring'`: scoring stopped after a fixed amount of work (it grows
   *   with the index: 2M steps, or 100 per document), so some matching
   *   documents were never scored;
   * - `'rerank'`: `diversity` / `dedupe` stopped after 4M comparison steps;
   *   the rest of the page is in score order (and not deduplicated);
   * - `'expand'`: link expansion stopped after 100,000 edges;
   * - `'answer'`: hits were left out to keep the answer's stored fields,
   *   snippets and explanations within 8 MiB (the first hit always fits).
   *
   * A clause repeated in the query (`a a a`, `x~2 x~2`) counts once, with
   * the repeats' summed boost. Ordinary queries stay far below every budget.
   */
  limited?: ('expansions' | 'scoring' | 'rerank' | 'expand' | 'answer')[];
  /**
   * Present only when the engine read the query differently from how it was
   * written (lenient syntax), one sentence each. `kind:rule` on a keyword or
   * boolean field is applied as the filter `{ kind: 'rule' }`; `priority:3`
   * on a number, date or stored field is searched as plain words. `foo:bar`
   * with no field `foo` (a question like `CS:GO?`) is plain words without a
   * warning. Show them to a developer or agent; they never fail a search.
   */
  warnings?: string[];
  /** What `strategy: 'auto'` chose (absent otherwise). */
  strategy?: StrategyChoice;
}

/** One autocomplete suggestion. */
export interface Suggestion {
  /**
   * The input with its last word completed to a word of the index, as
   * written in documents (lowercased): `'deploy fr'` -> `'deploy friday'`.
   */
  suggestion: string;
  /**
   * The ranking, highest first. A lone word: the documents containing it
   * (capped by the live documents containing its stem, so a word whose
   * every document was removed is gone at once; a word whose documents
   * were removed while others share its stem is counted until a merge).
   * After earlier words: the live documents containing every earlier word
   * and the completion's stem.
   */
  score: number;
}

/** Result of {@link Memdex.stats}. */
export interface Stats {
  /** Live documents. */
  documents: number;
  /** Distinct terms summed over segments (an upper bound). Documents just added count: `stats()` first flushes the write buffer, as a search does. */
  terms: number;
  /** Immutable segments, the one just flushed from the write buffer included. */
  segments: number;
  /** Approximate heap bytes of all segments. */
  bytes: number;
  /** Documents in the write buffer, not yet flushed into a segment (0 after `stats()` flushed it). */
  buffered: number;
  /** Generation of the last commit written or loaded (0 = never committed). */
  generation: number;
  /** Writes since the last commit. */
  pendingWrites: number;
  /** The page cache of `cacheBytes` (absent without it). */
  cache?: CacheStats;
}

/**
 * An index opened with `lazy: true`: searches and reads by id only, each
 * one async, run one after another. Segments written before format 6 are loaded whole.
 * Searches that read storage fail as storage does (`STORAGE`, `CORRUPT`
 * for damaged parts, `STORAGE` "open it again" when a commit collected the
 * parts of the segments it opened); the index stays usable.
 */
export interface LazyMemdex<Doc extends DocumentShape = MemdexDocument> {
  /** Always `true` (an index opened whole has no `lazy`). */
  readonly lazy: true;
  /** Number of live documents. */
  readonly size: number;
  /** Generation of the commit the index was opened at. */
  readonly generation: number;
  /** The same search, options and results as {@link Memdex.search}, fetching what it needs first. */
  search(query: string, options?: SearchOptions<Doc>): Promise<SearchResults<Doc>>;
  /**
   * The stored document `id` as {@link Memdex.get} gives it, or `undefined`.
   * A lazy index has no id map: its first read by id indexes the ids by
   * hash (one pass, 8 bytes per id, kept); then the document's page is fetched.
   */
  get(id: string, options?: GetOptions): Promise<Stored<Doc> | undefined>;
  /** The completions {@link Memdex.suggest} gives, fetching the surface words and term shards they need. */
  suggest(prefix: string, options?: number | { limit?: number }): Promise<Suggestion[]>;
  /** Documents, segments, and what the lazy cache holds and fetched. */
  stats(): Promise<LazyIndexStats>;
  /** Frees the engine; later calls are `USAGE` errors. */
  close(): void;
  /** The same as `close`. */
  free(): void;
}

/** {@link LazyMemdex.stats}: the fields of {@link Stats} (`bytes`: what is held now), and the lazy cache. */
export interface LazyIndexStats extends Stats {
  lazy: {
    /** The bound between searches: `cacheBytes`. */
    limit: number;
    /** Bytes of fetched parts held now (at most `limit`, or what the last search used). */
    bytes: number;
    /** Bytes of the committed index (every segment's head and body). */
    committedBytes: number;
    /** Parts a search needed that were held. */
    hits: number;
    /** Blobs read from storage since the open. */
    fetches: number;
    /** Bytes of those blobs. */
    fetchedBytes: number;
    /** Bytes of the parts the last search used. */
    lastSearchBytes: number;
  };
}

/** The stored-fields page cache of {@link OpenOptions.cacheBytes}. */
export interface CacheStats {
  /** The bound: `cacheBytes`. */
  limit: number;
  /** Bytes of unpacked pages held now (at most `limit`). */
  bytes: number;
  /** Reads answered by a page held unpacked. */
  hits: number;
  /** Pages unpacked (reads that were not hits). */
  unpacks: number;
}

/** Result of {@link Memdex.commit}. */
export interface CommitInfo {
  /** The new manifest generation. */
  generation: number;
  /** Blobs written, manifest included (proportional to the change, not the index). */
  blobsWritten: number;
  /** Bytes written, manifest included. */
  bytesWritten: number;
  /** Blobs no longer referenced and deleted afterwards. */
  blobsCollected: number;
}

/** Progress of {@link Memdex.addMany}. */
export interface AddProgress {
  /** Documents added so far. */
  added: number;
  /** Total, when known (arrays, or `total` given). */
  total?: number;
}

/** Options of {@link Memdex.addMany}. */
export interface AddManyOptions {
  /** Called after every batch and at the end. */
  onProgress?: (progress: AddProgress) => void;
  /** Documents per batch between yields to the event loop (default 1000; 500 in a worker). */
  batchSize?: number;
  /** Total count for progress reports, when `docs` is not an array. */
  total?: number;
}

/** Options of {@link Memdex.suggest}. */
export interface SuggestOptions {
  /** Maximum number of suggestions (default 10). */
  limit?: number;
}

/**
 * A full-text index. Reads and writes are synchronous and fast; `open`,
 * `commit`, `reload`, `addMany` and `close` are async. Code that `await`s
 * every call also works unchanged with {@link Memdex.openInWorker}.
 */
export class Memdex<Doc extends DocumentShape = MemdexDocument> {
  private constructor();

  /**
   * Opens the index `name` in `storage`, loading its last commit, or creates
   * an empty one. Loads the wasm engine once per process.
   * @throws {MemdexError} `USAGE` (bad options), `SCHEMA` (a schema change that needs {@link Memdex.migrate}),
   *   `STORAGE`, `CORRUPT` (damaged data, or a lost manifest: blobs without a
   *   manifest; see {@link Memdex.recover}), `VERSION`, `WASM_LOAD`.
   */
  static open<Doc extends DocumentShape = MemdexDocument>(options: OpenOptions & { lazy: true }): Promise<LazyMemdex<Doc>>;
  static open<Doc extends DocumentShape = MemdexDocument>(options: OpenOptions & { lazy: 'auto' }): Promise<Memdex<Doc> | LazyMemdex<Doc>>;
  static open<Doc extends DocumentShape = MemdexDocument>(options: OpenOptions & { embed: EmbedOptions<Doc> | Embed }): Promise<EmbeddingMemdex<Doc>>;
  static open<Doc extends DocumentShape = MemdexDocument>(options?: OpenOptions): Promise<Memdex<Doc>>;
  /**
   * Rebuilds the lost manifest of index `name` from the blobs still in
   * `storage`, then `open` works again. Pass the schema and analyzer options
   * the index was created with. Documents are restored as of the newest
   * intact segments; deletes whose tombstones are gone, and documents of
   * segments merged away but not yet collected, may come back.
   * @throws {MemdexError} `USAGE` if the index has a manifest (or in the lexical build,
   *   `memdex/lexical`), `STORAGE`, `SCHEMA`.
   */
  static recover(options: Omit<OpenOptions, 'autoCommit' | 'onError'>): Promise<RecoveryReport>;
  /**
   * Rebuilds an index from its stored documents (vectors and links
   * included) under a schema or analyzer that cannot apply in place, and
   * stores it with one commit of the target index, under its writer lock: a
   * crash before that commit's manifest swap leaves the old index as it was
   * (and at a new `to.name`, no index), after it the complete new one. In
   * place, other writers wait for the lock; one that loaded the old index
   * and commits afterwards gets `CONFLICT`, and its reload `SCHEMA` if its
   * open options ask for what changed. Into a new name, the source is read
   * as last committed and left as it is. Also `memdex migrate <dir> --schema file.json`.
   * @example await Memdex.migrate({ from: { storage: 'fs', dir }, to: { language: 'french' } })
   * @throws {MemdexError} `USAGE` (bad options, `to.name` exists, or the lexical build
   *   `memdex/lexical`), `SCHEMA` (a document does not fit
   *   the new schema, or a kept field was never stored), `LOCKED`, `CONFLICT`, `STORAGE`.
   */
  static migrate(options: MigrateOptions): Promise<MigrateResult>;
  /** An in-memory index; same as `open({ ...options, storage: 'memory' })`. */
  static create<Doc extends DocumentShape = MemdexDocument>(
    options: Omit<OpenOptions, 'storage' | 'dir' | 'database'> & { embed: EmbedOptions<Doc> | Embed },
  ): Promise<EmbeddingMemdex<Doc>>;
  static create<Doc extends DocumentShape = MemdexDocument>(options?: Omit<OpenOptions, 'storage' | 'dir' | 'database'>): Promise<Memdex<Doc>>;
  /**
   * Rebuilds an index from {@link Memdex.export} bytes (schema included), or
   * from the parts of {@link Memdex.exportStream} (the stream itself, or any
   * iterable of its parts, e.g. a file read as a stream).
   * @throws {MemdexError} `CORRUPT` if the bytes or parts are not one whole
   * snapshot (damaged, cut short, or followed by more), `VERSION`.
   */
  static import<Doc extends DocumentShape = MemdexDocument>(
    bytes: SnapshotSource,
    options: ImportOptions & { embed: EmbedOptions<Doc> | Embed },
  ): Promise<EmbeddingMemdex<Doc>>;
  static import<Doc extends DocumentShape = MemdexDocument>(bytes: SnapshotSource, options?: ImportOptions): Promise<Memdex<Doc>>;
  /**
   * Browsers: the same API with every method async, backed by a dedicated
   * module worker, so indexing never blocks the main thread.
   */
  static openInWorker<Doc extends DocumentShape = MemdexDocument>(options: WorkerOpenOptions & { lazy: true }): Promise<LazyMemdex<Doc>>;
  static openInWorker<Doc extends DocumentShape = MemdexDocument>(options?: WorkerOpenOptions): Promise<RemoteMemdex<Doc>>;

  /** The index name (its key prefix in storage). */
  readonly name: string;
  /** Live documents. */
  readonly size: number;
  /** Generation of the last commit written or loaded (0 = never). */
  readonly generation: number;
  /** Whether there are writes not yet committed. */
  readonly dirty: boolean;
  /** Whether {@link Memdex.close} was called. */
  readonly closed: boolean;

  /** Adds a document, replacing any document with the same `id`. @throws `SCHEMA` on bad documents. */
  add(doc: Input<Doc>): void;
  /**
   * Adds documents synchronously, in batches; returns how many. Stops at the
   * first rejected document like {@link Memdex.addMany}. Prefer `addMany` for
   * large inputs on a page: it yields to the event loop.
   */
  addAll(docs: Iterable<Input<Doc>>): number;
  /**
   * Adds documents in batches, yielding to the event loop in between;
   * resolves to how many were added. Stops at the first rejected document
   * with that document's error (`SCHEMA`, `LIMIT`, ...), whose message names
   * it and whose `added` says how many before it were added; those stay.
   */
  addMany(docs: Iterable<Input<Doc>> | AsyncIterable<Input<Doc>>, options?: AddManyOptions): Promise<number>;
  /**
   * Changes the given fields of document `id` and keeps everything else
   * it has: its other stored fields, its vectors and its links. One
   * upsert, so atomic: the document changes whole or not at all. `null`
   * removes a field; a field left out keeps its value; a field of the
   * schema declared `stored: false` cannot be read back, so it is kept
   * only when `changes` gives it again.
   * @throws {MemdexError} `NOT_FOUND` when there is no document `id`;
   *   `SCHEMA` when the patched document does not fit the schema (nothing
   *   changes); `USAGE` when `changes` is not an object or changes `id`.
   * @example index.patch('m1', { text: 'Deploys are frozen on Fridays', tags: null });
   */
  patch(id: string, changes: Changes<Doc>): void;
  /**
   * An index opened with `embed`: the documents with the vectors `add`
   * would embed (copies; a document that carries its vector, or has no
   * text, as given), nothing written. Embed first, then write them inside
   * `update(fn)` without the writer lock waiting on the embedder. `EMBED`
   * as for `add`; `USAGE` without `embed`.
   */
  embedDocuments(docs: Input<Doc>[]): Promise<Input<Doc>[]>;
  /** Removes a document; returns whether it existed. */
  remove(id: string): boolean;
  /** Removes every document matching a (non-empty) filter; returns how many. */
  removeWhere(filter: Filter<Doc>): number;
  /**
   * The stored document (dates as ISO strings), or `undefined`. Vectors
   * are not stored fields: `{ vectors: true }` adds them (see
   * {@link GetOptions.vectors}).
   */
  get(id: string, options?: GetOptions): Stored<Doc> | undefined;
  /**
   * Ranked search, or a listing for a blank query with `filter`/`sort`
   * (see {@link SearchOptions.sort}). Never throws on user text unless
   * `syntax: 'strict'`.
   */
  search(query: string, options?: SearchOptions<Doc>): SearchResults<Doc>;
  /**
   * The documents linked to `id` within `hops` (no query), scored
   * `1 / (1 + hops)`, best first, each with `via`. Unknown id: `[]`.
   * Not in the lexical build (`memdex/lexical`: `USAGE`).
   */
  related(id: string, options?: RelatedOptions): Hit<Doc>[];
  /**
   * The best hits of `search(query, options)` rendered as compact context
   * that never exceeds `budgetTokens` (see {@link PackResult}).
   */
  pack(query: string, options: PackOptions<Doc>): PackResult<Doc>;
  /**
   * Completions of the last word of `text` (what a search box holds), best
   * first: words as written in the documents, ranked by the live documents
   * containing them; with earlier words, by the documents containing the
   * earlier words and the completion (completions found with none of them
   * are left out). Empty when `text` is blank or ends with a space.
   */
  suggest(text: string, options?: SuggestOptions): Suggestion[];
  /** Live documents matching `filter` (all when omitted). */
  count(filter?: Filter<Doc>): number;
  /** Merges all segments into one. */
  compact(): void;
  /** Index statistics. */
  stats(): Stats;
  /** The whole index (schema included) as bytes for {@link Memdex.import}. */
  export(): Uint8Array;
  /**
   * The bytes of {@link Memdex.export} as a stream of parts (at most ~4 MiB
   * each), for an index too large to hold twice: neither the wasm nor JS
   * holds the whole snapshot. The stream is of the index as it is now;
   * later writes do not change it. {@link Memdex.import} takes it back.
   */
  exportStream(): ReadableStream<Uint8Array>;
  /**
   * Writes pending changes to storage: new blobs first, then the manifest by
   * compare-and-swap, so a crash leaves the previous commit intact and of two
   * racing writers exactly one wins. Commits of one index are serialized:
   * in-process, across tabs (Web Locks) and across Node processes (`fs`
   * storage's lock file). Resolves once the commit is durable.
   * @throws {MemdexError} `CONFLICT` if another writer committed since this
   *   index loaded: `reload()`, re-apply your writes, commit again (or make
   *   the writes through {@link Memdex.update}, which does that);
   *   `STORAGE` on adapter failures; `LOCKED` (fs) when another live
   *   writer holds the lock too long. A rejected commit drops every
   *   uncommitted write (the index reloads its last commit), so nothing it
   *   reported unsaved is saved later: re-apply them and commit again.
   *   (A failed auto-commit keeps them for the next attempt and `close()`.)
   */
  commit(): Promise<CommitInfo>;
  /**
   * Makes `fn`'s writes on the latest committed state and commits them under
   * the writer lock: the CONFLICT recovery (reload, re-apply, commit) done
   * for you, so writers in several tabs or processes never lose a write.
   * Reloads first if another writer committed; if one outside the lock
   * still wins, reloads and runs `fn` again (up to `retries`, default 5).
   * If `fn` throws or the commit fails (`STORAGE`, `LOCKED`, `CONFLICT`
   * past `retries`), every uncommitted write is dropped (the index reloads
   * its last commit) and the error rethrown: a rejected update leaves
   * nothing behind. Writes made before are committed first. Resolves to
   * `fn`'s result once durable.
   * @example await index.update((ix) => ix.add({ id: 'm1', text: '...' }));
   */
  update<R>(fn: (index: this) => R | Promise<R>, options?: { retries?: number }): Promise<R>;
  /**
   * {@link Memdex.update} with the writes as plain data, applied in order
   * and committed as one update (what {@link RemoteMemdex.update} sends to
   * its worker, where a function cannot go). Every operation is checked
   * before any runs (`USAGE`). Resolves to how many documents were added
   * and removed.
   * @example await index.update([{ op: 'add', doc: { id: 'm1', text: '...' } }, { op: 'remove', id: 'm0' }]);
   */
  update(operations: WriteOperation<Doc>[], options?: { retries?: number }): Promise<UpdateResult>;
  /** Replaces the in-memory state with the last commit in storage (an empty index if none), dropping uncommitted writes. Resolves to whether a commit was found. */
  reload(): Promise<boolean>;
  /**
   * Reloads if another writer committed since this index loaded or last
   * committed (one read of the stored manifest), unless this index has
   * uncommitted writes. Resolves to whether it reloaded.
   */
  refresh(): Promise<boolean>;
  /**
   * Resolves once the index answers again after an engine crash (a wasm
   * trap, answered `INTERNAL` once): the wasm instantiated anew and the
   * index reloaded from storage; writes not yet committed are lost. Async
   * methods wait for it themselves; sync ones called before it finished
   * throw `INTERNAL`. Resolves at once when nothing crashed.
   */
  ready(): Promise<void>;
  /**
   * Commits every pending write (persistent storage), then frees the engine;
   * later calls throw `CLOSED`. Rejects, leaving the index open, if a write
   * could not be committed (an auto-commit that failed included): nothing is
   * dropped silently. Fix the cause and `close()` again, or `free()`.
   */
  close(): Promise<void>;
  /** Frees the engine now, dropping uncommitted writes (the explicit "discard"). */
  free(): void;
}

/**
 * A {@link Memdex} opened with `embed`: the calls that may wait for the
 * embedder return Promises. `add`, `addMany` and `patch` embed the
 * documents that carry no vector (`patch`: when it changes the embedded
 * text, or gives the vector field `null`) before anything is written: an
 * `EMBED` error writes nothing of the call, and no commit or writer lock
 * waits on the embedder. `update(operations)` embeds before it takes the
 * writer lock; inside `update(fn)`, `await index.add(doc)` embeds under it.
 * `addAll` is synchronous: it takes only documents that carry their vectors
 * (else `USAGE`). `search` and `pack` resolve to their results.
 */
export interface EmbeddingMemdex<Doc extends DocumentShape = MemdexDocument>
  extends Omit<Memdex<Doc>, 'add' | 'patch' | 'search' | 'pack' | 'update'> {
  add(doc: Input<Doc>): Promise<void>;
  patch(id: string, changes: Changes<Doc>): Promise<void>;
  search(query: string, options?: SearchOptions<Doc>): Promise<SearchResults<Doc>>;
  pack(query: string, options: PackOptions<Doc>): Promise<PackResult<Doc>>;
  update<R>(fn: (index: this) => R | Promise<R>, options?: { retries?: number }): Promise<R>;
  update(operations: WriteOperation<Doc>[], options?: { retries?: number }): Promise<UpdateResult>;
}

/** One write of {@link Memdex.update}'s list form. */
export type WriteOperation<Doc = MemdexDocument> =
  | { op: 'add'; doc: Input<Doc> }
  | { op: 'patch'; id: string; changes: Changes<Doc> }
  | { op: 'remove'; id: string }
  | { op: 'removeWhere'; filter: Filter<Doc> };

/** What {@link Memdex.update} with a list of operations resolves to. */
export interface UpdateResult {
  /** Documents added (or replaced, patches included). */
  added: number;
  /** Documents removed (`remove` of an existing id, and `removeWhere` matches). */
  removed: number;
}

/** Wraps every method's result in a Promise. */
type Async<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never;
};

/**
 * The {@link Memdex} API served by a Web Worker ({@link Memdex.openInWorker}):
 * every method and getter async (`await index.size`), errors arriving as
 * {@link MemdexError} with their code. Code that `await`s every call works
 * with both. Two calls take plain data where `Memdex` also takes a function
 * (functions cannot cross threads): `update` takes a list of operations,
 * and `pack` counts tokens with the default counter (`countTokens` is refused).
 */
export interface RemoteMemdex<Doc extends DocumentShape = MemdexDocument>
  extends Async<
    Pick<
      Memdex<Doc>,
      | 'add'
      | 'addMany'
      | 'patch'
      | 'embedDocuments'
      | 'remove'
      | 'removeWhere'
      | 'get'
      | 'search'
      | 'related'
      | 'suggest'
      | 'count'
      | 'compact'
      | 'stats'
      | 'export'
      | 'commit'
      | 'reload'
      | 'refresh'
      | 'ready'
      | 'close'
    >
  > {
  /** The index name. */
  readonly name: string;
  /** Whether {@link RemoteMemdex.close} or {@link RemoteMemdex.free} was called. */
  readonly closed: boolean;
  /** Live documents (read in the worker). */
  readonly size: Promise<number>;
  /** Generation of the last commit written or loaded (0 = never). */
  readonly generation: Promise<number>;
  /** Whether there are writes not yet committed. */
  readonly dirty: Promise<boolean>;
  /** Same as `addMany` (the worker adds in batches either way). */
  addAll(docs: Iterable<Input<Doc>> | AsyncIterable<Input<Doc>>): Promise<number>;
  /** {@link Memdex.pack} in the worker, with the default token counter. */
  pack(query: string, options: Omit<PackOptions<Doc>, 'countTokens'>): Promise<PackResult<Doc>>;
  /**
   * {@link Memdex.update} with a list of operations, applied and committed
   * atomically in the worker (a function cannot be sent to it).
   */
  update(operations: WriteOperation<Doc>[], options?: { retries?: number }): Promise<UpdateResult>;
  /** Drops uncommitted writes and stops the worker ({@link RemoteMemdex.close} keeps them). */
  free(): Promise<void>;
  /** `await using`: closes the index. */
  [Symbol.asyncDispose](): Promise<void>;
}
