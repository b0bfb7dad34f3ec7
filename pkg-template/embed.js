// The embedding hook of `Memdex.open({ embed })`: which documents get a
// vector, the caller's embedder called in batches (a few at a time), its
// answers checked, and the query of a semantic search embedded. Every
// embedding of a call is awaited before any of its writes reaches the
// engine, so a failed embedding writes nothing and no commit, reload or
// writer lock waits on the embedder. Vectors are checked by the engine's
// own vector validator (a zero-result vector search), never by a copy of
// its rules.
import { MemdexError, describe, isObject, usage } from './memdex-error.js';
/** @typedef {(texts: string[]) => Promise<ArrayLike<number>[]> | ArrayLike<number>[]} EmbedFunction */

const KEYS = ['field', 'text', 'batchSize', 'concurrency', 'embed'];
/** The text embedded by default: the default schema's title and text. */
const DEFAULT_TEXT = ['title', 'text'];

/**
 * The `embed` option of `Memdex.open` checked (USAGE naming the option's
 * path); `undefined` when not given. A function is `{ embed: fn }`.
 * @param {unknown} option
 */
export function checkEmbedOption(option) {
  if (option === undefined) return undefined;
  const o = typeof option === 'function' ? { embed: option } : option;
  if (!isObject(o)) throw usage(`\`embed\` must be an object like { field: 'embedding', embed: async (texts) => vectors }, got ${describe(option)}`);
  for (const key of Object.keys(o)) {
    if (!KEYS.includes(key)) throw usage(`unknown option \`embed.${key}\`; expected ${KEYS.join(', ')}`);
  }
  if (typeof o.embed !== 'function') {
    throw usage(`\`embed.embed\` must be a function (texts: string[]) => Promise<vectors>, one vector per text, got ${describe(o.embed)}`);
  }
  if (o.field !== undefined && (typeof o.field !== 'string' || o.field === '')) {
    throw usage(`\`embed.field\` must be the name of a vector field of the schema, got ${describe(o.field)}`);
  }
  const text = o.text ?? DEFAULT_TEXT;
  const fields = Array.isArray(text) && text.length > 0 && text.every((f) => typeof f === 'string' && f !== '');
  if (!fields && typeof text !== 'function') {
    throw usage(`\`embed.text\` must be a list of field names (joined with ". ") or a function (doc) => string, got ${describe(o.text)}`);
  }
  for (const key of ['batchSize', 'concurrency']) {
    if (o[key] !== undefined && !(Number.isInteger(o[key]) && /** @type {number} */ (o[key]) >= 1)) {
      throw usage(`\`embed.${key}\` must be an integer >= 1, got ${describe(o[key])}`);
    }
  }
  return {
    field: /** @type {string | undefined} */ (o.field),
    text: /** @type {string[] | ((doc: Record<string, unknown>) => unknown)} */ (text),
    batchSize: /** @type {number} */ (o.batchSize ?? 32),
    concurrency: /** @type {number} */ (o.concurrency ?? 2),
    embed: /** @type {EmbedFunction} */ (o.embed),
  };
}

/**
 * @param {string} message
 * @param {unknown} [cause]
 */
const embedError = (message, cause) => new MemdexError('EMBED', message, cause === undefined ? undefined : { cause });

/** An index's embedder: `embed` of `Memdex.open` bound to its vector field. */
export class Embedder {
  #fn;
  #text;
  batchSize;
  concurrency;
  /** The vector field it fills. */
  field;

  /**
   * @param {NonNullable<ReturnType<typeof checkEmbedOption>>} config
   * @param {Set<string>} vectorFields the index's vector fields
   */
  constructor(config, vectorFields) {
    const fields = [...vectorFields];
    const field = config.field ?? (fields.length === 1 ? fields[0] : undefined);
    if (field === undefined || !vectorFields.has(field)) {
      const has = fields.length ? `its vector fields are ${fields.map((f) => `\`${f}\``).join(', ')}` : 'it has none; declare one, e.g. schema: { embedding: { type: \'vector\', dimensions: 384 } }';
      throw usage(`\`embed.field\` must name a vector field of the index's schema${config.field === undefined ? '' : ` (\`${config.field}\` is not one)`}; ${has}`);
    }
    this.field = field;
    this.#fn = config.embed;
    this.#text = config.text;
    this.batchSize = config.batchSize;
    this.concurrency = config.concurrency;
  }

  /**
   * The text embedded for `doc` ('' when it has none).
   * @param {Record<string, unknown>} doc
   * @returns {string}
   */
  textOf(doc) {
    const text = this.#text;
    if (typeof text !== 'function') return text.map((f) => doc[f]).filter((v) => typeof v === 'string' && v.trim() !== '').join('. ');
    let out;
    try {
      out = text(doc);
    } catch (err) {
      throw embedError(`\`embed.text\` threw for document ${describe(doc.id)}: ${/** @type {Error} */ (err)?.message ?? err}`, err);
    }
    if (typeof out !== 'string') throw embedError(`\`embed.text\` must return a string, got ${describe(out)} for document ${describe(doc.id)}`);
    return out;
  }

  /**
   * The text to embed for `doc`, or undefined when it carries its vector
   * (or has no text).
   * @param {unknown} doc
   */
  pending(doc) {
    if (!isObject(doc) || (doc[this.field] !== undefined && doc[this.field] !== null)) return undefined;
    const text = this.textOf(doc);
    return text.trim() === '' ? undefined : text;
  }

  /**
   * The text to embed for a patch of `stored` into `doc` (`changes` given),
   * or undefined when the stored vector still fits: `changes` gives the
   * vector itself, or the embedded text is unchanged and a vector is stored.
   * @param {Record<string, unknown>} stored
   * @param {Record<string, unknown>} doc
   * @param {Record<string, unknown>} changes
   */
  stale(stored, doc, changes) {
    if (changes[this.field] !== undefined && changes[this.field] !== null) return undefined;
    const text = this.textOf(doc);
    if (stored[this.field] != null && changes[this.field] === undefined && text === this.textOf(stored)) return undefined;
    return text.trim() === '' ? undefined : text;
  }

  /**
   * Embeds `texts` in batches of `batchSize`, `concurrency` batches at a
   * time; resolves to one Float32Array per text. `EMBED` when the embedder
   * throws or answers anything but one array of finite numbers per text.
   * @param {string[]} texts
   * @returns {Promise<Float32Array[]>}
   */
  async embed(texts) {
    /** @type {Float32Array[]} */
    const out = new Array(texts.length);
    let next = 0;
    const run = async () => {
      while (next < texts.length) {
        const start = next;
        next += this.batchSize;
        const vectors = await this.#batch(texts.slice(start, start + this.batchSize));
        vectors.forEach((v, i) => (out[start + i] = v));
      }
    };
    const workers = Math.min(this.concurrency, Math.ceil(texts.length / this.batchSize));
    await Promise.all(Array.from({ length: workers }, run));
    return out;
  }

  /**
   * @param {string[]} texts
   * @returns {Promise<Float32Array[]>}
   */
  async #batch(texts) {
    let got;
    try {
      got = await this.#fn(texts);
    } catch (err) {
      throw embedError(`the embedder failed on a batch of ${texts.length} texts: ${/** @type {Error} */ (err)?.message ?? err}; nothing of this call was written`, err);
    }
    if (!Array.isArray(got) || got.length !== texts.length) {
      const what = Array.isArray(got) ? `${got.length} vectors` : describe(got);
      throw embedError(`the embedder must resolve to an array of ${texts.length} vectors (one per text), got ${what}; nothing of this call was written`);
    }
    return got.map((v, i) => {
      const numbers = Array.isArray(v) || (ArrayBuffer.isView(v) && !(v instanceof DataView));
      const list = /** @type {ArrayLike<unknown>} */ (numbers ? v : []);
      let bad = numbers && list.length > 0 ? -1 : 0;
      for (let j = 0; bad < 0 && j < list.length; j++) {
        const x = list[j];
        if (typeof x !== 'number' || x - x !== 0) bad = j;
      }
      if (bad >= 0) {
        const why = numbers && list.length > 0 ? `element ${bad} is ${describe(list[bad])}` : `got ${describe(v)}`;
        throw embedError(`the embedder's vector ${i} of a batch of ${texts.length} is not a list of finite numbers (${why}); nothing of this call was written`);
      }
      return new Float32Array(/** @type {ArrayLike<number>} */ (list));
    });
  }

  /**
   * `docs` with the vectors of those that need one (copies; the others as
   * given), every vector embedded, then checked by `verify` (see
   * checkVectors) before it resolves.
   * @param {unknown[]} docs
   * @param {Verify} verify
   * @returns {Promise<unknown[]>}
   */
  async fill(docs, verify) {
    /** @type {number[]} */
    const at = [];
    /** @type {string[]} */
    const texts = [];
    docs.forEach((doc, i) => {
      const text = this.pending(doc);
      if (text !== undefined) {
        at.push(i);
        texts.push(text);
      }
    });
    if (texts.length === 0) return docs;
    const vectors = await this.embed(texts);
    const docsAt = at.map((i) => /** @type {Record<string, unknown>} */ (docs[i]));
    await verify(vectors, docsAt.map((doc) => `document ${describe(doc.id)}`));
    const out = docs.slice();
    at.forEach((i, k) => (out[i] = { ...docsAt[k], [this.field]: vectors[k] }));
    return out;
  }
}

/** @typedef {(vectors: Float32Array[], whats: string[]) => void | Promise<void>} Verify */

/**
 * Checks embedded vectors against the field's definition with the
 * engine's validator (dimensions, an all-zero vector on a cosine field):
 * a vector search for none of them. `EMBED` naming what the first that
 * does not fit was for.
 * @param {(query: string, options: Record<string, unknown>) => unknown} search a synchronous search of the index
 * @param {string} field
 * @param {Float32Array[]} vectors
 * @param {string[]} whats the document or query each is for
 */
export function checkVectors(search, field, vectors, whats) {
  vectors.forEach((vector, i) => {
    try {
      search('', { vector, vectorField: field, limit: 0 });
    } catch (err) {
      const reason = /** @type {MemdexError} */ (err).message.replace('search option `vector`', 'the vector');
      throw embedError(`the embedder's vector for ${whats[i]} does not fit field \`${field}\`: ${reason}; nothing of this call was written`, err);
    }
  });
}

/** The values of the `semantic` search option. */
const SEMANTIC = ['hybrid', 'vector'];

/**
 * The `semantic` search option checked: 'hybrid', 'vector' or undefined.
 * @param {unknown} value
 * @returns {'hybrid' | 'vector' | undefined}
 */
export function checkSemantic(value) {
  if (value === undefined || value === false) return undefined;
  if (typeof value !== 'string' || !SEMANTIC.includes(value)) {
    throw usage(`search option \`semantic\` must be 'hybrid' (the query's embedding fused with the words) or 'vector' (by the embedding alone), got ${describe(value)}`);
  }
  return /** @type {'hybrid' | 'vector'} */ (value);
}

/** What a semantic search without an embedder answers with (and says so). */
export const NO_EMBEDDER = 'no embedder is configured (open the index with `embed`) and no query `vector` was given: answered by words alone';
