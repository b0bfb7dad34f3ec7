// A Web Worker (the subset worker-client.js uses) over a Node worker_thread
// running the package's real worker.js, so `Memdex.openInWorker` runs in Node
// tests: same client, same worker, same structured cloning.
import { Worker as ThreadWorker } from 'node:worker_threads';

const SCRIPT = new URL('./web-worker-thread.mjs', import.meta.url);

export class NodeWebWorker {
  #thread = new ThreadWorker(SCRIPT);

  addEventListener(type, fn) {
    if (type === 'message') this.#thread.on('message', (data) => fn({ data }));
    else if (type === 'error') this.#thread.on('error', (err) => fn({ message: err.message }));
    else if (type === 'messageerror') this.#thread.on('messageerror', () => fn({}));
  }

  postMessage(message, transfer = []) {
    this.#thread.postMessage(message, transfer);
  }

  terminate() {
    this.#thread.terminate();
  }
}
