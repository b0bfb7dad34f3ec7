// The parts of the Workers runtime this Worker uses, declared by hand
// (@cloudflare/workers-types is not a dependency; nothing is downloaded).

export interface KVNamespace {
  get(key: string, type: 'arrayBuffer'): Promise<ArrayBuffer | null>;
  get(key: string, options: { type: 'arrayBuffer'; cacheTtl?: number }): Promise<ArrayBuffer | null>;
  put(key: string, value: ArrayBuffer | ArrayBufferView | string): Promise<void>;
  delete(key: string): Promise<void>;
  list(options?: { prefix?: string; cursor?: string; limit?: number }): Promise<{
    keys: { name: string }[];
    list_complete: boolean;
    cursor?: string;
  }>;
}

export interface DurableObjectId {
  toString(): string;
}

export interface DurableObjectNamespace<T = unknown> {
  idFromName(name: string): DurableObjectId;
  get(id: DurableObjectId): DurableObjectStub<T>;
}

/** RPC: every method of the object, returning a Promise. */
export type DurableObjectStub<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never;
};

export interface DurableObjectStorage {
  get<T = unknown>(key: string): Promise<T | undefined>;
  get<T = unknown>(keys: string[]): Promise<Map<string, T>>;
  put(key: string, value: unknown): Promise<void>;
  put(entries: Record<string, unknown>): Promise<void>;
  delete(key: string | string[]): Promise<boolean | number>;
  list<T = unknown>(options?: { prefix?: string; start?: string; end?: string; limit?: number }): Promise<Map<string, T>>;
  transaction<T>(fn: (txn: DurableObjectStorage) => Promise<T>): Promise<T>;
  setAlarm(time: number | Date): Promise<void>;
  getAlarm(): Promise<number | null>;
}

export interface DurableObjectState {
  id: DurableObjectId;
  storage: DurableObjectStorage;
  blockConcurrencyWhile<T>(fn: () => Promise<T>): Promise<T>;
}

export interface ExecutionContext {
  waitUntil(promise: Promise<unknown>): void;
}

/** Bindings and variables (worker/wrangler.toml, worker/.dev.vars). */
export interface Env {
  /** Workers KV: the segments (blobs) and the published manifest of every namespace. */
  MEMDEX_KV: KVNamespace;
  /** One Durable Object per namespace: its single writer. */
  MEMDEX_WRITER: DurableObjectNamespace<import('./writer.js').NamespaceWriter>;
  /** One Durable Object for the whole service: which namespaces exist, and who created them. */
  MEMDEX_REGISTRY: DurableObjectNamespace<import('./registry.js').Registry>;
  /** Secret: JSON array of key entries (worker/README.md). */
  MEMDEX_API_KEYS?: string;
  MEMDEX_LIMITS?: string;
  MEMDEX_CORS_ORIGINS?: string;
  MEMDEX_REVALIDATE_MS?: string;
  MEMDEX_GROUP_COMMIT_MS?: string;
  MEMDEX_BLOB_GRACE_MS?: string;
  MEMDEX_CACHE_BYTES?: string;
  MEMDEX_WRITER_IDLE_MS?: string;
  MEMDEX_PUBLISH_MS?: string;
  MEMDEX_CACHE_ENTRIES?: string;
  /** Tests only: "1" enables the fault injection of src/test-hooks.js. */
  MEMDEX_TEST_HOOKS?: string;
}
