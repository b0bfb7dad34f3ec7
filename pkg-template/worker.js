// The dedicated module worker behind `Memdex.openInWorker()`: imports the
// browser entry and serves one index over postMessage. Messages are
// `{ id, method, args }`; replies are `{ id, result }` or
// `{ id, error: { code, message } }`.
import { Memdex, MemdexError } from './index.js';

let index = null;

const handlers = {
  async open([options]) {
    if (index) throw new MemdexError('USAGE', 'this worker already serves an index');
    index = await Memdex.open({ ...options, onError: (err) => console.error('memdex worker: auto-commit failed:', err) });
    return null;
  },
  async addBatch([docs]) {
    await index.ready();
    try {
      return index.addAll(docs);
    } catch (err) {
      // addAll names the document by its place in this batch; the client
      // names it by its place in the whole input, from `added`.
      if (Number.isInteger(err?.added) && err.cause) throw Object.assign(err.cause, { added: err.added });
      throw err;
    }
  },
  async close() {
    if (index) await index.close();
    return null;
  },
};

self.addEventListener('message', async ({ data }) => {
  const { id, method, args = [] } = data ?? {};
  try {
    let result;
    if (handlers[method]) {
      if (method !== 'open' && !index) throw new MemdexError('USAGE', 'open the index first');
      result = await handlers[method](args);
    } else if (index && typeof Memdex.prototype[method] === 'function' && method !== 'constructor') {
      // After an engine crash, the next call runs on the restarted engine
      // (reloaded from storage) instead of failing too.
      await index.ready();
      result = await index[method](...args);
    } else {
      throw new MemdexError('USAGE', `unknown method ${method}()`);
    }
    const transfer = result instanceof Uint8Array ? [result.buffer] : [];
    self.postMessage({ id, result }, { transfer });
  } catch (err) {
    self.postMessage({
      id,
      error: { code: err?.code ?? 'INTERNAL', message: err?.message ?? String(err), reason: err?.reason, added: err?.added },
    });
  }
});
