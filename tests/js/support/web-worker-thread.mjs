// Runs the package's module worker (pkg/worker.js, the worker behind
// Memdex.openInWorker) in a Node worker_thread: `self` gets the two Web
// Worker calls it uses (addEventListener('message'), postMessage). Used with
// `NodeWebWorker` (tests/js/support/node-web-worker.mjs).
import { parentPort } from 'node:worker_threads';

globalThis.self = {
  addEventListener(type, fn) {
    if (type === 'message') parentPort.on('message', (data) => fn({ data }));
  },
  postMessage(message, options) {
    parentPort.postMessage(message, options?.transfer ?? []);
  },
};
await import('../../../pkg/worker.js');
