// @ts-check
// What a handler gets, and the two ways to reach a namespace: its writer
// (Durable Object, for writes and forwarded reads) and the read path
// (isolate copy, else the writer).
import { ApiError } from './errors.js';
import { json } from './http.js';
import { lazyServes, runRead } from './reads.js';
import { discardCopy, isInternal, readCopy } from './reader.js';

/** @typedef {import('./auth.js').Principal} Principal */
/** @typedef {import('./config.js').Settings} Settings */
/** @typedef {import('./reads.js').ReadOp} ReadOp */
/** @typedef {import('./writes.js').WriteOp} WriteOp */
/** @typedef {import('./writes.js').Outcome} Outcome */

/**
 * @typedef {object} Context
 * @property {Request} request
 * @property {URL} url
 * @property {Env} env
 * @property {ExecutionContext} ctx
 * @property {Settings} settings
 * @property {Record<string, string>} params  decoded path parameters
 * @property {Principal} key  (absent only on public routes)
 */

/** @param {Env} env @param {string} ns */
export const writerOf = (env, ns) => env.MEMDEX_WRITER.get(env.MEMDEX_WRITER.idFromName(ns));

/** @param {Env} env */
export const registryOf = (env) => env.MEMDEX_REGISTRY.get(env.MEMDEX_REGISTRY.idFromName('registry'));

/**
 * Sends a write to the namespace's writer; resolves once it is durable.
 *
 * @param {Context} c
 * @param {string} ns
 * @param {WriteOp} op
 * @returns {Promise<Outcome>}
 */
export function write(c, ns, op) {
  const grant = { keyId: c.key.id, maxNamespaces: c.key.maxNamespaces ?? c.settings.limits.maxNamespacesPerKey };
  return writerOf(c.env, ns).write(ns, op, grant);
}

/**
 * The answer to a write: its value and the generation that holds it, or
 * its error (with `added` and `generation` when some documents were added).
 *
 * @param {Outcome} outcome
 */
export function writeResponse(outcome) {
  if (outcome.ok) {
    return json({ .../** @type {object} */ (outcome.value), generation: outcome.generation }, 200, generationHeader(outcome.generation));
  }
  throw outcomeError(outcome);
}

/** @param {Outcome & { ok: false }} outcome */
export function outcomeError(outcome) {
  // `status`: the one the writer's error had, when not the code's (errorRecord).
  const { code, message, status, ...extra } = outcome.error;
  if (outcome.generation !== undefined && extra.added) Object.assign(extra, { generation: outcome.generation });
  return new ApiError(/** @type {any} */ (code), message, { extra, status });
}

/**
 * Runs a read on the freshest copy that satisfies `minGeneration`: the
 * isolate's, else the writer's.
 *
 * @param {Context} c
 * @param {string} ns
 * @param {ReadOp} op
 * @param {number} minGeneration
 * @returns {Promise<{ value: any, generation: number, servedBy: 'isolate' | 'writer' }>}
 */
export async function read(c, ns, op, minGeneration) {
  const index = await readCopy(c.env, c.ctx, ns, minGeneration);
  if (index && (!('lazy' in index) || lazyServes(op))) {
    try {
      return { value: await runRead(index, ns, op), generation: index.generation, servedBy: 'isolate' };
    } catch (err) {
      if (isInternal(err)) discardCopy(ns, index);
      throw err;
    }
  }
  // The RPC stub types results as serialized; the writer answers an Outcome.
  const outcome = /** @type {Outcome} */ (await writerOf(c.env, ns).read(ns, op));
  if (!outcome.ok) throw outcomeError(outcome);
  if (outcome.generation < minGeneration) {
    throw new ApiError('NOT_FOUND', `namespace "${ns}" has no generation ${minGeneration} (it is at ${outcome.generation})`);
  }
  return { value: outcome.value, generation: outcome.generation, servedBy: 'writer' };
}

/** @param {number} generation */
export const generationHeader = (generation) => ({ 'x-memdex-generation': String(generation) });
