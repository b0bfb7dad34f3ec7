// The dedicated module worker behind `Memdex.openInWorker()`: imports the
// browser entry and serves one index over postMessage. Messages are
// `{ id, method, args }`: a method of `Memdex` (its arguments as sent), a
// getter as `get:<name>`, or one of the handlers below; replies are
// `{ id, result }` or `{ id, error: { code, message, ... } }`.
import { Memdex, MemdexError } from './index.js';
import { checkVectors } from './embed.js';
import { vectorFields } from './documents.js';
import { ENGINE } from './lifecycle.js';

/** @type {Memdex | null} */
let index = null;
/** @type {import('./lazy.js').LazyMemdex | null} an index opened with `lazy: true` (searches only) */
let lazy = null;

/** What a lazily opened index answers (see lazy.js). */
const LAZY_METHODS = new Set(['search', 'get', 'suggest', 'stats']);

/** The public getters a client may read (see worker-client.js). */
const GETTERS = new Set(['size', 'generation', 'dirty']);

/** @type {Record<string, (args: any[]) => Promise<unknown>>} arguments as the client sent them (plain data) */
const handlers = {
  async open([options]) {
    if (index || lazy) throw new MemdexError('USAGE', 'this worker already serves an index');
    if (options?.lazy) {
      lazy = /** @type {any} */ (await Memdex.open(options));
      return null;
    }
    /** @type {import('./index.js').OpenOptions} embed runs in the client (worker-client.js) */
    const open = { ...options, onError: (err) => console.error('memdex worker: auto-commit failed:', err) };
    index = await Memdex.open(open);
    return null;
  },
  async addBatch([docs]) {
    const open = /** @type {Memdex} */ (index);
    await open.ready();
    try {
      return open.addAll(docs);
    } catch (err) {
      // addAll names the document by its place in this batch; the client
      // names it by its place in the whole input, from `added`.
      const e = /** @type {MemdexError} */ (err);
      if (Number.isInteger(e?.added) && e.cause) throw Object.assign(/** @type {object} */ (e.cause), { added: e.added });
      throw err;
    }
  },
  // openInWorker({ embed }): the client embeds; these answer what it needs.
  async vectorFields() {
    const engine = /** @type {{ [ENGINE]: import('./memdex.js').Engine }} */ (/** @type {unknown} */ (index))[ENGINE];
    return [...vectorFields(engine)];
  },
  async checkVectors([field, vectors, whats]) {
    const open = /** @type {Memdex} */ (index);
    checkVectors((query, options) => open.search(query, options), field, vectors, whats);
    return null;
  },
  async close() {
    if (index) await index.close();
    lazy?.close();
    return null;
  },
};

/**
 * Whether `name` is a public method of Memdex (own or inherited, string-keyed).
 * @param {string} name
 */
function isMethod(name) {
  if (name === 'constructor') return false;
  for (let proto = Memdex.prototype; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    const d = Object.getOwnPropertyDescriptor(proto, name);
    if (d) return typeof d.value === 'function';
  }
  return false;
}

/**
 * Runs one message's call.
 * @param {string} method
 * @param {unknown[]} args
 */
async function dispatch(method, args) {
  if (lazy && method !== 'open' && method !== 'close') {
    if (method === 'get:size' || method === 'get:generation') return lazy[method === 'get:size' ? 'size' : 'generation'];
    if (!LAZY_METHODS.has(method)) throw new MemdexError('USAGE', `${method}(): an index opened with \`lazy: true\` only searches and reads (search, get, suggest, stats, close)`);
    const [first, options] = /** @type {[string, any]} */ (args);
    if (method === 'stats') return lazy.stats();
    return lazy[/** @type {'search' | 'get' | 'suggest'} */ (method)](first, options);
  }
  if (handlers[method]) {
    if (method !== 'open' && !index && !lazy) throw new MemdexError('USAGE', 'open the index first');
    return handlers[method](args);
  }
  if (!index) throw new MemdexError('USAGE', 'open the index first');
  // After an engine crash, the next call runs on the restarted engine
  // (reloaded from storage) instead of failing too.
  if (method.startsWith('get:') && GETTERS.has(method.slice(4))) {
    await index.ready();
    return /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (index))[method.slice(4)];
  }
  if (isMethod(method)) {
    if (method !== 'free') await index.ready();
    const fn = /** @type {(...args: unknown[]) => unknown} */ (/** @type {Record<string, unknown>} */ (/** @type {unknown} */ (index))[method]);
    return fn.apply(index, args);
  }
  throw new MemdexError('USAGE', `unknown method ${method}()`);
}

self.addEventListener('message', async (/** @type {MessageEvent} */ { data }) => {
  const { id, method, args = [] } = data ?? {};
  try {
    const result = await dispatch(String(method), args);
    const transfer = result instanceof Uint8Array ? [result.buffer] : [];
    self.postMessage({ id, result }, { transfer });
  } catch (thrown) {
    const err = /** @type {Partial<MemdexError> | undefined} */ (thrown);
    self.postMessage({
      id,
      error: {
        code: err?.code ?? 'INTERNAL',
        message: err?.message ?? String(thrown),
        reason: err?.reason,
        added: err?.added,
        holder: err?.holder,
        data: err?.data,
      },
    });
  }
});
