// Snapshots part by part: `exportStream()` hands out the bytes of
// `export()` one blob at a time (at most ~4 MiB a part), and `import()`
// takes them back from a stream or an iterable of parts. Neither side holds
// the whole snapshot in one buffer, in the wasm or in JS.
import { SnapshotImport } from './memdex.js';
import { usage } from './memdex-error.js';
import { call } from './realm.js';

/**
 * The snapshot of `engine` as a stream of parts. The stream holds the
 * index's segments as they are now: later writes do not change it.
 * @param {import('./memdex.js').Engine} engine
 * @returns {ReadableStream<Uint8Array>}
 */
export function snapshotStream(engine) {
  const parts = call(() => engine.exportParts());
  let open = true;
  const free = () => {
    if (open) parts.free();
    open = false;
  };
  return new ReadableStream({
    pull(controller) {
      try {
        const part = call(() => parts.next());
        if (part === undefined) {
          free();
          controller.close();
        } else controller.enqueue(part);
      } catch (err) {
        free();
        throw err;
      }
    },
    cancel: free,
  }, { highWaterMark: 0 });
}

/**
 * Whether `source` is something `import()` reads part by part.
 * @param {unknown} source
 * @returns {source is ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | Iterable<Uint8Array>}
 */
export function isPartSource(source) {
  if (source === null || typeof source !== 'object' || source instanceof Uint8Array) return false;
  return typeof (/** @type {any} */ (source).getReader) === 'function'
    || Symbol.asyncIterator in source || Symbol.iterator in source;
}

/**
 * The parts of `source`, read through `getReader()` for a stream (async
 * iteration of streams is not in every browser).
 * @param {ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | Iterable<Uint8Array>} source
 * @returns {AsyncGenerator<unknown>}
 */
async function* partsOf(source) {
  if (!('getReader' in source)) {
    yield* /** @type {AsyncIterable<Uint8Array>} */ (source);
    return;
  }
  const reader = source.getReader();
  try {
    for (let r = await reader.read(); !r.done; r = await reader.read()) yield r.value;
  } finally {
    reader.releaseLock();
  }
}

/**
 * The engine of a snapshot given part by part: `CORRUPT` when the parts
 * are not one whole snapshot (damaged, cut short, or followed by more).
 * @param {ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | Iterable<Uint8Array>} source
 * @returns {Promise<import('./memdex.js').Engine>}
 */
export async function importParts(source) {
  const reader = new SnapshotImport();
  let done = false;
  try {
    for await (const part of partsOf(source)) {
      if (!(part instanceof Uint8Array)) throw usage('Memdex.import(parts): each part must be a Uint8Array from exportStream()');
      call(() => reader.push(part));
    }
    done = true;
    return call(() => reader.finish());
  } finally {
    if (!done) reader.free();
  }
}
