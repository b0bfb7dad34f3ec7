// @ts-check
// Requests per key per minute: a token bucket in the isolate (not a Durable
// Object). It costs nothing per request and needs no round trip, but each
// isolate counts on its own: a key spread over N isolates (N locations, or
// a busy location with several) may make up to N times the limit. It stops
// a runaway client hammering one location, which is what it is for; a
// global quota would be a Durable Object per key on every request.
import { limitError } from './errors.js';

/** @type {Map<string, { tokens: number, at: number }>} */
const buckets = new Map();
const MAX_BUCKETS = 10_000;

/**
 * Takes one token from `id`'s bucket (capacity `perMinute`, refilled
 * continuously), or throws 429 LIMIT with Retry-After.
 *
 * @param {string} id
 * @param {number} perMinute
 * @param {number} [now]
 */
export function takeToken(id, perMinute, now = Date.now()) {
  let b = buckets.get(id);
  if (!b) {
    if (buckets.size >= MAX_BUCKETS) buckets.clear(); // bounded memory; full buckets again is harmless
    b = { tokens: perMinute, at: now };
    buckets.set(id, b);
  }
  b.tokens = Math.min(perMinute, b.tokens + ((now - b.at) * perMinute) / 60_000);
  b.at = now;
  if (b.tokens < 1) {
    const wait = Math.ceil(((1 - b.tokens) * 60_000) / perMinute / 1000);
    throw limitError('requestsPerMinute', `more than ${perMinute} requests per minute with this API key; retry in ${wait} s`, 429, {
      'retry-after': String(wait),
    });
  }
  b.tokens -= 1;
}
