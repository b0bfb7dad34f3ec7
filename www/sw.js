// Service worker: the explorer works offline after its first load.
// Network first (a rebuilt pkg/ or an edited page is picked up at once when
// the server is up), the cache when the network fails. The cache is filled
// with the page's files at install, with every same-origin response that
// passes through here, and with the files the first page load fetched
// before this worker controlled it (the page posts their URLs: the wasm
// glue imports a snippet whose path carries a build hash, which no list
// written here could know).
// A classic script: `self` is this service worker's global scope.
const sw = /** @type {ServiceWorkerGlobalScope} */ (/** @type {unknown} */ (self));
const CACHE = 'memdex-explorer-v1';
const scope = sw.registration.scope;
const SHELL = [
  '',
  'index.html',
  'style.css',
  'app.js',
  'highlight.js',
  'synthetic.js',
  'memories.jsonl',
  'lib/bulk.js',
  'lib/detail.js',
  'lib/dom.js',
  'lib/editor.js',
  'lib/explain.js',
  'lib/latency.js',
  'lib/metered.js',
  'lib/offline.js',
  'lib/panel.js',
  'lib/query.js',
  'lib/results.js',
  'lib/search-view.js',
  'lib/snapshot.js',
  'lib/store.js',
  'pkg/index.js',
  'pkg/core.js',
  'pkg/pack.js',
  'pkg/memdex-error.js',
  'pkg/realm.js',
  'pkg/languages.js',
  'pkg/documents.js',
  'pkg/open-options.js',
  'pkg/lifecycle.js',
  'pkg/memdex.js',
  'pkg/memdex-english_bg.wasm',
  'pkg/memdex_bg.wasm', // fetched when an index needs another language
  'pkg/worker.js',
  'pkg/worker-client.js',
  'pkg/storage/memory.js',
  'pkg/storage/indexeddb.js',
  'pkg/storage/locks.js',
  'pkg/storage/util.js',
].map((path) => new URL(path, scope).href);

/**
 * Caches each URL on its own: one missing file must not fail the install.
 * @param {string[]} urls
 */
async function cacheAll(urls) {
  const cache = await caches.open(CACHE);
  const results = await Promise.allSettled(
    urls.map(async (url) => {
      const response = await fetch(url, { cache: 'no-cache' });
      if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
      await cache.put(url, response);
    }),
  );
  return results.filter((r) => r.status === 'fulfilled').length;
}

sw.addEventListener('install', (event) => {
  event.waitUntil(cacheAll(SHELL).then(() => sw.skipWaiting()));
});

sw.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const key of await caches.keys()) if (key !== CACHE) await caches.delete(key);
      await sw.clients.claim();
    })(),
  );
});

sw.addEventListener('message', (event) => {
  if (event.data?.type !== 'cache') return;
  const urls = /** @type {unknown[]} */ (event.data.urls).flatMap((u) => (typeof u === 'string' && u.startsWith(scope) ? [u] : []));
  event.waitUntil(
    cacheAll(urls).then(async (n) => {
      const cached = (await (await caches.open(CACHE)).keys()).length;
      event.ports[0]?.postMessage({ cached, added: n });
    }),
  );
});

sw.addEventListener('fetch', (event) => {
  const { request } = event;
  if (request.method !== 'GET' || !request.url.startsWith(scope)) return;
  event.respondWith(
    (async () => {
      try {
        const response = await fetch(request);
        if (response.ok && response.type === 'basic') {
          const copy = response.clone();
          event.waitUntil(caches.open(CACHE).then((cache) => cache.put(request.url.split('#')[0], copy)));
        }
        return response;
      } catch (err) {
        const cache = await caches.open(CACHE);
        const hit =
          (await cache.match(request, { ignoreSearch: true })) ??
          (request.mode === 'navigate' ? await cache.match(new URL('index.html', scope).href) : undefined);
        if (hit) return hit;
        throw err;
      }
    })(),
  );
});
