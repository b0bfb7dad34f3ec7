// Registers the service worker (sw.js) and hands it the URLs this page
// load fetched, so the files fetched before it took control are cached
// too. Resolves to how many files the cache holds, or null without
// service workers (e.g. an http:// origin other than localhost).
export async function enableOffline() {
  if (!('serviceWorker' in navigator) || !window.isSecureContext) return null;
  await navigator.serviceWorker.register(new URL('../sw.js', import.meta.url), { type: 'classic' });
  const registration = await navigator.serviceWorker.ready;
  const here = new URL('..', import.meta.url).href;
  const urls = [
    location.href.split('#')[0],
    ...performance.getEntriesByType('resource').map((e) => e.name),
  ].filter((u) => u.startsWith(here));
  const channel = new MessageChannel();
  const reply = new Promise((resolve) => {
    channel.port1.onmessage = ({ data }) => resolve(data.cached);
  });
  if (!registration.active) throw new Error('the service worker is not active');
  registration.active.postMessage({ type: 'cache', urls: [...new Set(urls)] }, [channel.port2]);
  return reply;
}
