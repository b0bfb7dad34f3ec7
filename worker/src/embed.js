// @ts-check
// Embedding with Workers AI, when the Worker has an `AI` binding (optional;
// wrangler.toml shows it commented out): every namespace with a vector
// field (its first) has its index opened with the package's `embed`, so
// documents written without a vector (REST and the memory tools) are
// embedded before they are written, and a `semantic` search without a
// vector embeds its query. The model is MEMDEX_AI_MODEL (default
// @cf/baai/bge-small-en-v1.5, 384 dimensions: the vector field must have
// the model's). Without the binding nothing is embedded, and a `semantic`
// search is answered by words and says so. The tests bind a stand-in
// (tests/worker/embed.test.mjs): Workers AI cannot run in local workerd.
import { toolVectorField } from './schema.js';

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
