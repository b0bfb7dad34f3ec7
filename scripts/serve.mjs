// Tiny static server for the demo page: `/` serves www/, `/pkg/` serves the
// built npm package (pkg/), so the page imports the real wasm build.
// Usage: node scripts/serve.mjs  (PORT env var, default 8080; 0 = any free port)
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.jsonl': 'application/x-ndjson; charset=utf-8',
  '.wasm': 'application/wasm',
  '.ts': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
};

// URL prefix -> directory. Longest prefix first.
const MOUNTS = [
  ['/pkg/', join(ROOT, 'pkg')],
  ['/', join(ROOT, 'www')],
];

async function resolveFile(urlPath) {
  for (const [prefix, dir] of MOUNTS) {
    if (!urlPath.startsWith(prefix)) continue;
    let rel = decodeURIComponent(urlPath.slice(prefix.length));
    if (rel === '' || rel.endsWith('/')) rel += 'index.html';
    const file = normalize(join(dir, rel));
    if (file !== dir && !file.startsWith(dir + sep)) return null; // no ../ escapes
    try {
      if ((await stat(file)).isFile()) return file;
    } catch {
      return null;
    }
    return null;
  }
  return null;
}

/** Starts the server; resolves to `{ server, url }` once listening. */
export function startServer({ port = 8080, host = '127.0.0.1' } = {}) {
  const server = createServer(async (req, res) => {
    try {
      const { pathname } = new URL(req.url, 'http://localhost');
      const file = req.method === 'GET' || req.method === 'HEAD' ? await resolveFile(pathname) : null;
      if (!file) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
        return;
      }
      const body = await readFile(file);
      res.writeHead(200, {
        'content-type': MIME[extname(file)] ?? 'application/octet-stream',
        'content-length': body.length,
        'cache-control': 'no-cache',
      });
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch (err) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(`error: ${err.message}\n`);
    }
  });
  return new Promise((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const { port: actual } = server.address();
      resolvePromise({ server, url: `http://localhost:${actual}/` });
    });
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const port = Number(process.env.PORT ?? 8080);
  const { url } = await startServer({ port, host: process.env.HOST ?? '127.0.0.1' });
  console.log(`memdex explorer: ${url}  (Ctrl-C to stop)`);
}
