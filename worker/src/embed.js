// @ts-check
// Embedding with Workers AI, when the Worker has an `AI` binding (optional;
// wrangler.toml shows it commented out): every namespace with a vector
// field (its first) has its index opened with the package's `embed`, so
// documents written without a vector are embedded before they are written
// (REST writes in the request's isolate, before they reach the namespace's
// writer: embedBeforeWrite; PATCH and the memory tools in the writer), and
// a `semantic` search without a vector embeds its query. The model is
// MEMDEX_AI_MODEL (default
// @cf/baai/bge-small-en-v1.5, 384 dimensions: the vector field must have
// the model's). Without the binding nothing is embedded, and a `semantic`
// search is answered by words and says so. The tests bind a stand-in
// (tests/worker/embed.test.mjs): Workers AI cannot run in local workerd.
import { kvPrefix } from './ids.js';
import { Memdex } from './memdex.js';
import { cleanMessage } from './reads.js';
import { schemaKey, toolVectorField } from './schema.js';

export const DEFAULT_MODEL = '@cf/baai/bge-small-en-v1.5';
/** Texts per call of the model (the bge models take up to 100). */
const BATCH_SIZE = 32;

/**
 * The `embed` open option for a namespace of this schema (none without an
 * AI binding or a vector field).
 *
 * @param {Env} env
 * @param {import('./schema.js').Schema} schema
 * @returns {{ embed?: import('memdex').EmbedOptions }}
 */
export function embedOption(env, schema) {
  const ai = env.AI;
  const field = toolVectorField(schema);
  if (!ai || typeof ai.run !== 'function' || field === false) return {};
  const model = env.MEMDEX_AI_MODEL || DEFAULT_MODEL;
  /** @param {string[]} texts */
  const embed = async (texts) => /** @type {number[][]} */ ((await ai.run(model, { text: texts }))?.data);
  return { embed: { field, embed, batchSize: BATCH_SIZE, concurrency: 2 } };
}

/**
 * The documents of a REST write with their vectors, embedded in the
 * request's isolate before they reach the namespace's writer, so that its
 * group commit never waits on the model (what the writer's index would
 * otherwise embed as it applies the write). Checked by the engine's
 * validator in an empty index of the namespace's schema: a model error or
 * a wrong answer is EMBED here, and nothing is sent. A schema not in KV yet
 * (a namespace just created elsewhere) leaves the embedding to the writer.
 *
 * @param {Env} env
 * @param {string} ns
 * @param {Record<string, unknown>[]} docs
 */
export async function embedBeforeWrite(env, ns, docs) {
  if (!env.AI) return docs;
  const text = await env.MEMDEX_KV.get(schemaKey(kvPrefix(ns)), 'text');
  if (text === null) return docs;
  const schema = JSON.parse(text);
  const options = embedOption(env, schema);
  if (!options.embed) return docs;
  const probe = await Memdex.open({ schema, embed: options.embed });
  try {
    return /** @type {Record<string, unknown>[]} */ (await probe.embedDocuments(/** @type {import('memdex').MemdexDocument[]} */ (docs)));
  } catch (err) {
    // Engine ids in the message shown as the client's.
    const e = /** @type {Error} */ (err);
    if (typeof e?.message === 'string') e.message = cleanMessage(ns, e.message);
    throw err;
  } finally {
    probe.free();
  }
}
