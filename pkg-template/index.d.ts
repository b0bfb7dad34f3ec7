/**
 * memdex: full-text search for AI-agent memory, compiled to WebAssembly.
 *
 * ```ts
 * import { Memdex } from 'memdex';
 * const index = await Memdex.create();
 * index.add({ id: 'm1', title: 'Deploy rule', text: 'Never deploy on Fridays' });
 * const { hits } = index.search('deploying friday');
 * ```
 */

/** Stable error codes carried by {@link MemdexError.code}. */
export type MemdexErrorCode =
  | 'INVALID_QUERY'
  | 'SCHEMA'
  | 'NOT_FOUND'
  | 'STORAGE'
  | 'CORRUPT'
  | 'CONFLICT'
  | 'VERSION'
  | 'LIMIT'
  /** The .wasm file could not be fetched, read or instantiated. */
  | 'WASM_LOAD'
  /** The API was used the wrong way (e.g. `new Memdex()`). */
  | 'USAGE'
  /** The engine hit a bug (a wasm trap); the index should be discarded. */
  | 'INTERNAL';

/** Every error thrown by memdex; switch on `code`, not on `message`. */
export class MemdexError extends Error {
  readonly name: 'MemdexError';
  readonly code: MemdexErrorCode;
  constructor(code: MemdexErrorCode, message: string, options?: { cause?: unknown });
}

/** A field of the schema. */
export type FieldDef =
  /** Analyzed full-text field; `weight` scales its BM25F contribution (default 1). */
  | { type: 'text'; weight?: number; language?: string; stored?: boolean }
  /** Exact-match string, usable in filters. */
  | { type: 'keyword'; stored?: boolean }
  | { type: 'number'; stored?: boolean }
  /** ISO-8601 string or epoch milliseconds. */
  | { type: 'date'; stored?: boolean }
  | { type: 'boolean'; stored?: boolean }
  /** Stored and returned, never indexed. */
  | { type: 'stored' };

/** Options of {@link Memdex.create}. All optional; the default schema is
 * `title` (text, weight 2), `text` (text), `kind` (keyword), `timestamp` (date). */
export interface MemdexOptions {
  /** Field definitions by name (`id` and `namespace` are reserved). */
  fields?: Record<string, FieldDef>;
  /** Text analysis: language, stemming, stopwords, folding. */
  analyzer?: Record<string, unknown>;
  /** BM25 term-frequency saturation (default 1.2). */
  k1?: number;
  /** BM25 length normalisation, 0..1 (default 0.75). */
  b?: number;
  /**
   * Where to get the engine: a URL, a fetch `Response`, raw bytes or a compiled
   * `WebAssembly.Module`. Defaults to `memdex_bg.wasm` next to the package
   * (fetched in browsers, read from disk in Node, imported in workerd).
   * Only the first `create()` call of a process loads it.
   */
  wasm?: URL | string | Response | BufferSource | WebAssembly.Module;
}

/** A document. `id` is required; other keys must be declared in the schema. */
export interface MemdexDocument {
  id: string;
  /** Tenant / agent / repo:branch the document belongs to. */
  namespace?: string;
  [field: string]: unknown;
}

export interface HighlightOptions {
  /** Inserted before a matched term (default `<mark>`). */
  preTag?: string;
  /** Inserted after a matched term (default `</mark>`). */
  postTag?: string;
  /** Approximate snippet length in characters (default 160). */
  snippetLength?: number;
}

export interface SearchOptions {
  /** `or` (default): any term; `and`: all terms; `fallback`: AND, then OR if AND finds fewer than `minHits`. */
  mode?: 'or' | 'and' | 'fallback';
  /** `lenient` (default) never throws on user text; `strict` throws `INVALID_QUERY`. */
  syntax?: 'lenient' | 'strict';
  /** Number of hits to return (default 10). */
  limit?: number;
  /** Number of hits to skip (default 0). */
  offset?: number;
  /** For `mode: 'fallback'` (default 1). */
  minHits?: number;
  /** Restrict to these text fields, mapping to a weight override. */
  fields?: Record<string, number>;
  /** Structural filter, keyed by field name (namespace, keyword, ranges). */
  filter?: Record<string, unknown>;
  /** Treat each bare term as a prefix too (search-as-you-type). */
  prefix?: boolean;
  /** Edit distance 0, 1 or 2 for each bare term. */
  fuzzy?: 0 | 1 | 2;
  /** Return HTML-escaped snippets with highlight tags. */
  highlight?: HighlightOptions;
  /** Attach a per-term score breakdown to every hit. */
  explain?: boolean;
  /** Per-query BM25 overrides. */
  k1?: number;
  b?: number;
}

export interface TermExplanation {
  term: string;
  field: string;
  idf: number;
  tf: number;
  fieldLength: number;
  avgFieldLength: number;
  weight: number;
  score: number;
}

export interface Hit {
  id: string;
  score: number;
  namespace?: string;
  /** Stored fields of the document. */
  fields: Record<string, unknown>;
  /** Index terms (analyzed, e.g. stemmed) of the query found in this document. */
  matchedTerms: string[];
  /** Field name -> highlighted snippet, when `highlight` was asked for. */
  snippets?: Record<string, string>;
  explanation?: TermExplanation[];
}

export interface SearchResults {
  hits: Hit[];
  /** The mode that produced `hits` (`fallback` resolves to `and` or `or`). */
  mode: 'or' | 'and';
}

export interface Stats {
  /** Live documents. */
  documents: number;
  /** Distinct terms summed over segments (an upper bound). */
  terms: number;
  /** Immutable segments (the write buffer is not counted). */
  segments: number;
  /** Approximate heap bytes of all segments. */
  bytes: number;
  /** Documents in the write buffer, not yet flushed into a segment. */
  buffered: number;
}

/** An in-memory full-text index. */
export class Memdex {
  private constructor();
  /** Loads the wasm engine (once per process) and creates an empty index. */
  static create(options?: MemdexOptions): Promise<Memdex>;
  /** Adds a document, replacing any document with the same `id`. Throws `SCHEMA` on bad input. */
  add(doc: MemdexDocument): void;
  /** Adds documents in order; returns how many were added. */
  addAll(docs: Iterable<MemdexDocument>): number;
  /** Removes a document; returns whether it existed. */
  remove(id: string): boolean;
  /** The stored document, or `undefined`. */
  get(id: string): MemdexDocument | undefined;
  /** Ranked search. Never throws on user text unless `syntax: 'strict'`. */
  search(query: string, options?: SearchOptions): SearchResults;
  /** Index statistics. */
  stats(): Stats;
  /** Releases the wasm memory of this index. */
  free(): void;
  [Symbol.dispose](): void;
}
