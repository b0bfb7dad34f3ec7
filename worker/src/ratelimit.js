// @ts-check
// Request rates: token buckets in the isolate (not a Durable Object). They
// cost nothing per request and need no round trip, but each isolate counts
// on its own: a key spread over N isolates (N locations, or a busy location
// with several) may make up to N times the limit. They stop a runaway
// client hammering one location, which is what they are for; a global
// quota would be a Durable Object per key on every request.
//
// Two kinds of bucket, in separate maps so that one cannot push the other
// out: per API key (each request costs a token, each JSON-RPC message of a
// /mcp batch one more), and per client address for requests whose key is
// missing or invalid (otherwise unlimited: they never reach a key's bucket).
// Both maps are bounded: past `MAX_BUCKETS` the least recently used bucket
// goes (an evicted bucket comes back full, which only forgives a client
// that was quiet longest).
import { limitError } from './errors.js';

/** @typedef {{ tokens: number, at: number }} Bucket */

export const MAX_BUCKETS = 10_000;

/** @type {Map<string, Bucket>} */
const keys = new Map();
/** @type {Map<string, Bucket>} */
const addresses = new Map();

/**
 * Takes `cost` tokens from key `id`'s bucket (capacity `perMinute`, refilled
 * continuously), or throws 429 LIMIT with Retry-After and takes none.
 *
 * @param {string} id
 * @param {number} perMinute
 * @param {number} [cost]
 * @param {number} [now]
 */
export function takeToken(id, perMinute, cost = 1, now = Date.now()) {
  take(keys, id, perMinute, cost, now, 'requestsPerMinute', cost === 1 ? `more than ${perMinute} requests per minute with this API key` : `this batch of ${cost} messages would make more than ${perMinute} requests per minute with this API key; nothing of it ran`);
}

/**
 * Counts a request with a missing or invalid key against the client's
 * address (`CF-Connecting-IP`, set by Cloudflare; without it, one bucket
 * shared by all such requests), or throws 429 LIMIT.
 *
 * @param {Request} request
 * @param {number} perMinute
 * @param {number} [now]
 */
export function takeAuthFailure(request, perMinute, now = Date.now()) {
  const address = request.headers.get('cf-connecting-ip') ?? '';
  take(addresses, address.slice(0, 64), perMinute, 1, now, 'authFailuresPerMinute', `more than ${perMinute} requests per minute with a missing or invalid API key from this address`);
}

/** Buckets held, for the diagnostics of GET /v1/namespaces. */
export const bucketCounts = () => ({ keys: keys.size, addresses: addresses.size });

/**
 * @param {Map<string, Bucket>} map
 * @param {string} id
 * @param {number} perMinute
 * @param {number} cost
 * @param {number} now
 * @param {string} limit
 * @param {string} message
 */
function take(map, id, perMinute, cost, now, limit, message) {
  let b = map.get(id);
  if (b) map.delete(id); // re-inserted below: the map's order is least recently used first
  else {
    if (map.size >= MAX_BUCKETS) map.delete(/** @type {string} */ (map.keys().next().value));
    b = { tokens: perMinute, at: now };
  }
  map.set(id, b);
  b.tokens = Math.min(perMinute, b.tokens + ((now - b.at) * perMinute) / 60_000);
  b.at = now;
  if (b.tokens < cost) {
    const wait = Math.max(1, Math.ceil(((Math.min(cost, perMinute) - b.tokens) * 60_000) / perMinute / 1000));
    throw limitError(limit, `${message}; retry in ${wait} s`, 429, { 'retry-after': String(wait) });
  }
  b.tokens -= cost;
}
