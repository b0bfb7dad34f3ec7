// @ts-check
// memdex edge memory service: a Cloudflare Worker (ES module).
//
//   Worker isolates (this fetch handler) authenticate, validate and answer
//     reads from index copies loaded from Workers KV (reader.js).
//   NamespaceWriter (writer.js), a Durable Object per namespace, is the
//     single writer: group commits to KV, manifest in its own storage.
//   Registry (registry.js), one Durable Object: which namespaces exist.
//
// Routes: routes.js; the API: GET /v1/openapi.json; design: ARCHITECTURE.md
// ("Edge service"); running it: worker/README.md.
import { authenticate, authorize } from './auth.js';
import { settings } from './config.js';
import { ApiError, errorBody } from './errors.js';
import { corsHeaders, json, preflight, withHeaders } from './http.js';
import { checkNamespace } from './ids.js';
import { takeAuthFailure, takeToken } from './ratelimit.js';
import { testHook } from './test-hooks.js';
import { matchRoute } from './routes.js';

export { NamespaceWriter } from './writer.js';
export { Registry } from './registry.js';


export default {
  /**
   * @param {Request} request
   * @param {Env} env
   * @param {ExecutionContext} ctx
   */
  async fetch(request, env, ctx) {
    /** @type {Record<string, string>} */
    let cors = {};
    try {
      const s = settings(env);
      cors = corsHeaders(request, s);
      if (request.method === 'OPTIONS') return preflight(request, s);
      const url = new URL(request.url);
      const { route, params } = matchRoute(request.method, url.pathname);
      /** @type {any} */
      const c = { request, url, env, ctx, settings: s, params };
      if (route.role) {
        const key = await authenticate(request, env.MEMDEX_API_KEYS).catch((err) => {
          // Key guessing and floods without a key are limited per address.
          if (err instanceof ApiError && err.code === 'UNAUTHORIZED') takeAuthFailure(request, s.limits.authFailuresPerMinute);
          throw err;
        });
        // One token per request; /mcp takes one more per further message of a batch.
        takeToken(key.id, key.requestsPerMinute ?? s.limits.requestsPerMinute);
        if (params.ns !== undefined) checkNamespace(params.ns);
        authorize(key, route.role, params.ns);
        c.key = key;
      }
      if (s.testHooks) testHook(request);
      return withHeaders(await route.handler(c), cors);
    } catch (err) {
      const { status, body, headers } = errorBody(err instanceof Error && !(err instanceof ApiError) && isConfigError(err) ? config(err) : err);
      return json(body, status, { ...cors, ...headers });
    }
  },
};

// A bad MEMDEX_* setting (config.js throws plain Errors) is the operator's
// to fix: say which, as a 500.
/** @param {Error} err */
const isConfigError = (err) => /^MEMDEX_/.test(err.message);
/** @param {Error} err */
const config = (err) => new ApiError('INTERNAL', `the Worker is misconfigured: ${err.message}`);
