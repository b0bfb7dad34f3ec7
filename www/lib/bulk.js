// Bulk writes go through Memdex.openInWorker: a dedicated worker opens the
// same IndexedDB index, indexes the documents in batches, and commits; the
// page only parses (or generates) documents and posts them, so it keeps
// painting and answering searches meanwhile. When the worker has
// committed, the page's own index picks the commit up with refresh().
import { Memdex } from '../pkg/index.js';
import { DATABASE } from './store.js';

/** @typedef {import('../pkg/index.js').MemdexDocument} MemdexDocument */
/**
 * An import's error, with how many documents before it were committed.
 * @typedef {Error & { added?: number }} ImportError
 */

/**
 * Streams a JSONL file: one memory per line, blank lines skipped. `_id`
 * (the BEIR / shared-data spelling) is read as `id`. Reports bytes read.
 * @param {File} file
 * @param {(bytes: number) => void} onBytes
 * @returns {AsyncGenerator<MemdexDocument>}
 */
export async function* readJsonl(file, onBytes) {
  const reader = file.stream().getReader();
  const decoder = new TextDecoder();
  let rest = '';
  let bytes = 0;
  let line = 0;
  /**
   * A line's document, or null for a blank line. Not checked here: the
   * engine refuses a document that is not one, naming what is wrong.
   * @param {string} text
   * @returns {MemdexDocument | null}
   */
  const parse = (text) => {
    line++;
    if (!text.trim()) return null;
    let doc;
    try {
      doc = JSON.parse(text);
    } catch (err) {
      throw new Error(`line ${line} is not JSON: ${/** @type {Error} */ (err).message}`);
    }
    if (doc && typeof doc === 'object' && doc.id === undefined && doc._id !== undefined) {
      const { _id, ...restOfDoc } = doc;
      doc = { id: String(_id), ...restOfDoc };
    }
    return doc;
  };
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    onBytes(bytes);
    const lines = (rest + decoder.decode(value, { stream: true })).split('\n');
    rest = lines.pop() ?? '';
    for (const text of lines) {
      const doc = parse(text);
      if (doc) yield doc;
    }
  }
  const doc = parse(rest + decoder.decode());
  if (doc) yield doc;
}

/**
 * Longest gap between animation frames while `fn` runs: the page's own
 * measure of whether it stayed responsive.
 * @template T
 * @param {() => Promise<T>} fn
 */
async function watchFrames(fn) {
  let last = performance.now();
  let longest = 0;
  let frames = 0;
  let on = true;
  /** @param {number} t */
  const tick = (t) => {
    longest = Math.max(longest, t - last);
    last = t;
    frames++;
    if (on) requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
  try {
    const result = await fn();
    return { result, longest, frames };
  } finally {
    on = false;
  }
}

/**
 * Adds `docs` to the store's index through a worker and commits them.
 * A rejected document stops the import: the ones before it are committed
 * (memdex keeps them), and the error says which one and why.
 * @param {import('./store.js').Store} store
 * @param {Iterable<MemdexDocument> | AsyncIterable<MemdexDocument>} docs
 * @param {{ total?: number, onProgress: (added: number) => void, onPhase: (text: string) => void }} ui
 */
export async function importThroughWorker(store, docs, { total, onProgress, onPhase }) {
  await store.settle(); // the page's own writes first, so the worker starts from them
  store.busy = true;
  let added = 0;
  let watched;
  try {
    const remote = await Memdex.openInWorker({ name: store.name, storage: 'indexeddb', database: DATABASE, autoCommit: false });
    // A source that fails (a line that is not JSON) ends the stream instead
    // of the import: the documents before it still reach the worker and
    // are committed, like those before a document the engine rejects.
    /** @type {ImportError | null} */
    let sourceError = null;
    async function* noted() {
      try {
        for await (const doc of docs) {
          if (doc && typeof doc === 'object') store.noteDoc(doc);
          yield doc;
        }
      } catch (err) {
        sourceError = /** @type {ImportError} */ (err);
      }
    }
    try {
      watched = await watchFrames(async () => {
        /** @type {ImportError | null} */
        let failure = null;
        try {
          added = await remote.addMany(noted(), {
            total, // batches of 500 (the worker client's default): short main-thread slices
            onProgress: (p) => {
              added = p.added;
              onProgress(p.added);
            },
          });
        } catch (err) {
          failure = /** @type {ImportError} */ (err);
          const before = failure?.added;
          if (typeof before === 'number' && Number.isInteger(before)) added = before;
        }
        failure ??= sourceError;
        if (added >= 10_000) {
          onPhase('Compacting in the worker…');
          await remote.compact(); // one segment: faster searches, one write
        }
        onPhase('Saving to IndexedDB…');
        await remote.commit();
        return failure;
      });
    } finally {
      await remote.close().catch(() => {});
    }
  } finally {
    store.busy = false;
  }
  onPhase('Loading the new commit into the page…');
  const t0 = performance.now();
  await store.afterImport();
  const loadMs = performance.now() - t0;
  const failure = watched.result;
  if (failure) {
    failure.added = added;
    throw failure;
  }
  return { added, longestFrameGap: watched.longest, frames: watched.frames, loadMs };
}
