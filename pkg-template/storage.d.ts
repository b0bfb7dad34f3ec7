/**
 * memdex storage adapters: where a committed index lives.
 *
 * memdex persists an index as immutable, content-addressed blobs
 * (`<name>/blob/<hash>`) plus one manifest (`<name>/manifest`) written last.
 * Any object with the four methods of {@link StorageAdapter} can hold an
 * index; the package ships adapters for IndexedDB (browsers), Workers KV
 * (Cloudflare Workers), the filesystem (Node) and memory (tests):
 *
 * ```ts
 * import { indexedDBStorage } from 'memdex/storage/indexeddb';
 * import { kvStorage } from 'memdex/storage/kv';
 * import { fsStorage } from 'memdex/storage/fs';
 * import { memoryStorage } from 'memdex/storage/memory';
 * import { withIndexLock } from 'memdex/storage/locks';
 * ```
 *
 * Every adapter passes memdex's storage conformance suite (the same Rust
 * suite the native adapters pass).
 */

/**
 * The contract between memdex and a key-value store. Keys are
 * `/`-separated ASCII paths; values are bytes.
 *
 * - `put` must be atomic per key (a reader sees the old or the new value,
 *   never a mix) and should resolve only once the value is durable: the
 *   commit protocol writes the manifest last and relies on it.
 * - `delete` of a missing key succeeds.
 * - `list(prefix)` returns every key starting with `prefix`, sorted.
 * - `swap(key, expected, value)` is a compare-and-swap: it stores `value`
 *   only if the current value is byte for byte `expected` (`null`: the key
 *   is absent), atomically against every other `swap` of the key, and
 *   resolves to whether it stored. It is the commit point: of two writers
 *   committing from the same manifest, exactly one wins and the other gets
 *   `CONFLICT` (docs/FORMAT.md, "Commit protocol"). An adapter over a store
 *   without conditional writes can only implement it for a single writer.
 * - Operations are linearizable: a `get` or `list` that starts after a
 *   `put` or `delete` resolved sees its effect.
 * - Optionally, `lock(name, fn)` runs `fn` holding a writer lock of index
 *   `name` that excludes other processes; `Memdex#commit` takes it when
 *   present, else {@link withIndexLock}.
 * - Failures reject; memdex reports them as `MemdexError` code `STORAGE`.
 */
export interface StorageAdapter {
  /** The value, or `null`/`undefined` when the key is missing. */
  get(key: string): Promise<Uint8Array | ArrayBuffer | null | undefined>;
  /** Stores a copy of `value` under `key`, replacing any previous value. */
  put(key: string, value: Uint8Array): Promise<void>;
  /** Removes `key`; a missing key is not an error. */
  delete(key: string): Promise<void>;
  /** Keys starting with `prefix`, sorted. */
  list(prefix: string): Promise<string[]>;
  /** Stores `value` only if the current value equals `expected` (`null`: absent); resolves to whether it stored. */
  swap(key: string, expected: Uint8Array | null, value: Uint8Array): Promise<boolean>;
  /** A cross-process writer lock for index `name` (optional). */
  lock?<T>(name: string, fn: () => T | Promise<T>, options?: IndexLockOptions): Promise<T>;
  /**
   * Called with each value `get` resolved to once memdex has copied it
   * (optional): an adapter whose values are fresh buffers of its own may
   * free them now (`kvStorage` and `indexedDBStorage` detach them) instead of at the next
   * garbage collection. Never called for a value memdex still reads.
   */
  release?(value: Uint8Array | ArrayBuffer): void;
  /**
   * Bytes a commit gathers into one blob of a segment's body, the unit a
   * lazily opened index fetches (optional; default 131072, for stores that
   * count each read, as Workers KV does). From 4096 to 4194240; the
   * built-in memory, fs and IndexedDB adapters use 32768 (an option of
   * `fsStorage` and `indexedDBStorage`). Smaller parts: a lazy search
   * fetches less; larger: a whole open reads fewer blobs. Indexes of any
   * part size open everywhere.
   */
  readonly partBytes?: number;
}

/** Why a storage adapter failed (the `reason` of a {@link StorageAdapterError}). */
export type StorageFailureReason =
  /** The browser/disk quota is exhausted (QuotaExceededError, ENOSPC). */
  | 'QUOTA_EXCEEDED'
  /** Opening IndexedDB is blocked by another connection holding an older version. */
  | 'BLOCKED'
  /** An IndexedDB transaction was aborted. */
  | 'ABORTED'
  /** The IndexedDB connection was closed (e.g. by another tab's upgrade) and could not be reopened. */
  | 'CLOSED'
  /** The IndexedDB database has an unexpected version or schema. */
  | 'VERSION'
  /** The key is not acceptable to this adapter (empty, `..`, too long...). */
  | 'INVALID_KEY'
  /** The value is not bytes, or stored data is not bytes. */
  | 'INVALID_VALUE'
  /** Permission denied (filesystem). */
  | 'PERMISSION'
  /** Workers KV rate limit. */
  | 'RATE_LIMITED'
  /** Value larger than the backend accepts. */
  | 'TOO_LARGE'
  /** The backend does not exist here (no `indexedDB` global). */
  | 'UNAVAILABLE'
  /** `kvStorage` was given something that is not a KV binding. */
  | 'INVALID_BINDING'
  /** `withIndexLock(..., { ifAvailable: true })`: another writer holds the lock (code `CONFLICT`). */
  | 'LOCKED'
  /** Any other I/O failure. */
  | 'IO';

/** Errors thrown by the adapters. `code` is `STORAGE` (or `CONFLICT` / `LOCKED` for a busy lock). */
export interface StorageAdapterError extends Error {
  name: 'MemdexStorageError';
  code: 'STORAGE' | 'CONFLICT' | 'LOCKED';
  /** `LOCKED`: the lock's holder, as its lock file says. */
  holder?: { pid?: number; host?: string; since?: string };
  reason: StorageFailureReason;
  /** The key (or prefix) of the failed operation, when there is one. */
  key?: string;
  /** The underlying DOMException / Node error / KV error. */
  cause?: unknown;
}

// ---- memory -----------------------------------------------------------------

/** In-memory storage; values are copied on put and get. */
export interface MemoryStorage extends StorageAdapter {
  get(key: string): Promise<Uint8Array | null>;
  /** Number of keys stored. */
  readonly size: number;
  /** Total bytes of all values. */
  readonly bytes: number;
  /** Removes every key. */
  clear(): void;
}

/** An empty in-memory storage (tests, ephemeral indexes). */
export function memoryStorage(): MemoryStorage;

// ---- IndexedDB ----------------------------------------------------------------

export interface IndexedDBStorageOptions {
  /** Database name (default `'memdex'`). */
  database?: string;
  /** Object store name (default `'kv'`); created on first open, upgrading the database if needed. */
  store?: string;
  /**
   * Durability hint of write transactions (default `'strict'`: `put`
   * resolves once the data is flushed to disk). `'relaxed'` is faster but a
   * power loss may lose the last commits (never corrupt them).
   */
  durability?: 'strict' | 'relaxed' | 'default';
  /** IndexedDB factory to use (default `globalThis.indexedDB`; e.g. fake-indexeddb in tests). */
  indexedDB?: IDBFactory;
  /** `IDBKeyRange` matching `indexedDB` (default `globalThis.IDBKeyRange`). */
  IDBKeyRange?: typeof IDBKeyRange;
  /** The adapter's {@link StorageAdapter.partBytes} (default 32768; 131072 suits an index always opened whole: a sixth faster to open). */
  partBytes?: number;
}

/** IndexedDB storage. The database is opened lazily on the first call. */
export interface IndexedDBStorage extends StorageAdapter {
  get(key: string): Promise<Uint8Array | null>;
  /** Detaches the value's buffer (freeing it at once where `ArrayBuffer#transfer` exists). */
  release(value: Uint8Array | ArrayBuffer): void;
  readonly database: string;
  readonly store: string;
  /** Closes the connection; a later call reopens it. */
  close(): Promise<void>;
  /** Closes the connection and deletes the whole database. */
  deleteDatabase(): Promise<void>;
}

/** Storage in one IndexedDB object store (browsers, Web Workers). */
export function indexedDBStorage(options?: IndexedDBStorageOptions): IndexedDBStorage;

// ---- Workers KV -----------------------------------------------------------------

/** The subset of a Workers KV namespace binding memdex uses. */
export interface KVNamespaceLike {
  get(key: string, type: 'arrayBuffer'): Promise<ArrayBuffer | null>;
  put(key: string, value: ArrayBuffer | ArrayBufferView): Promise<void>;
  delete(key: string): Promise<void>;
  list(options: { prefix?: string; cursor?: string }): Promise<{
    keys: { name: string }[];
    list_complete: boolean;
    cursor?: string;
  }>;
}

export interface KVStorageOptions {
  /** Prepended to every key, so several apps can share one namespace (default `''`). */
  prefix?: string;
}

/**
 * Workers KV storage. KV is eventually consistent across locations: use one
 * writer per index (the memdex Worker uses a Durable Object) and expect
 * readers elsewhere to see a commit up to ~60 s late.
 */
export interface KVStorage extends StorageAdapter {
  get(key: string): Promise<Uint8Array | null>;
  /** Detaches the value's buffer (freeing it at once where `ArrayBuffer#transfer` exists). */
  release(value: Uint8Array | ArrayBuffer): void;
  readonly prefix: string;
}

/** Storage over a Workers KV namespace binding (`env.MY_KV`). */
export function kvStorage(binding: KVNamespaceLike, options?: KVStorageOptions): KVStorage;

// ---- filesystem (Node) ----------------------------------------------------------

/**
 * Filesystem storage: one file per key under `dir`, atomic durable puts, a
 * compare-and-swap and a writer lock that exclude other processes (lock
 * files `*.lock~`, holding the holder's PID, host and process start time).
 * A lock whose process died, whose PID now names another process, or that
 * names this process without being one it holds, is broken; a live one
 * never, and a wait for it ends after `waitMs` in `LOCKED`.
 */
export interface FsStorage extends StorageAdapter {
  get(key: string): Promise<Uint8Array | null>;
  /** `waitMs`: the bound on waiting for a live writer (default: `lockWaitMs` of {@link fsStorage}); then `LOCKED`. */
  lock<T>(name: string, fn: () => T | Promise<T>, options?: IndexLockOptions & { waitMs?: number }): Promise<T>;
  /** Absolute root directory. */
  readonly dir: string;
  /** Deletes the whole directory. */
  destroy(): Promise<void>;
}

/** Storage in a directory (Node only; the same layout as the native Rust `FsStorage`). */
export function fsStorage(dir: string | URL, options?: FsStorageOptions): FsStorage;

export interface FsStorageOptions {
  /** How long `lock` waits for another live writer before `LOCKED` (default 10000 ms). */
  lockWaitMs?: number;
  /** The adapter's {@link StorageAdapter.partBytes} (default 32768; 131072 suits an index always opened whole: a sixth faster to open). */
  partBytes?: number;
}

// ---- writer lock ------------------------------------------------------------------

export interface IndexLockOptions {
  /** Aborting while waiting rejects with the signal's reason; `fn` never runs. */
  signal?: AbortSignal;
  /** Do not wait: reject with code `CONFLICT` (reason `LOCKED`) if the lock is held. */
  ifAvailable?: boolean;
}

/**
 * Runs `fn` holding the exclusive writer lock of index `name`. Uses the Web
 * Locks API (`navigator.locks`, lock name `memdex:<name>`) when present, so
 * tabs and workers of one origin exclude each other; otherwise an in-process
 * mutex (Node, workerd), which does not exclude other processes (the `fs`
 * adapter's `lock` does, and `Memdex#commit` uses it).
 */
export function withIndexLock<T>(name: string, fn: () => T | Promise<T>, options?: IndexLockOptions): Promise<T>;

/** The mechanism {@link withIndexLock} uses in this runtime. */
export function indexLockKind(): 'web-locks' | 'in-process';
