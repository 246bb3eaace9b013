#!/usr/bin/env node
// The demo's dev server: static files from web-demo/dist with COOP/COEP (cross-origin
// isolated, so SharedArrayBuffer is available), the right MIME types, and HTTP Range (one
// `bytes=a-b` range per request), so `h5web.html?url=samples/x.h5` reads by ranges as it would
// from any file server. Prints the URL.
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = join(dirname(fileURLToPath(import.meta.url)), 'dist');
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
};

/**
 * The inclusive byte range a `Range` header asks for: undefined for none (or one this server
 * answers with the whole file: several ranges, other units), null when it is unsatisfiable.
 */
function byteRange(header, size) {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header?.trim() ?? '');
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  const [start, end] = m[1] === '' ? [Math.max(0, size - Number(m[2])), size - 1] : [Number(m[1]), m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1)];
  return start <= end && start < size ? [start, end] : null;
}

/** Serves `root` (default web-demo/dist); benchmarks serve folders of their own. */
export function startServer(port = Number(process.env.PORT ?? 8080), host = process.env.HOST ?? '127.0.0.1', root = dist) {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    let file = join(root, path);
    try {
      if (statSync(file).isDirectory()) file = join(file, 'index.html');
      const { size, mtime } = statSync(file);
      const headers = {
        'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
        'Accept-Ranges': 'bytes',
        'Last-Modified': mtime.toUTCString(),
        'Cross-Origin-Opener-Policy': 'same-origin',
        'Cross-Origin-Embedder-Policy': 'require-corp',
        'Cross-Origin-Resource-Policy': 'same-origin',
        'Cache-Control': 'no-cache',
      };
      const range = byteRange(req.headers.range, size);
      if (range === null) {
        res.writeHead(416, { ...headers, 'Content-Range': `bytes */${size}` });
        return res.end();
      }
      const [start, end] = range ?? [0, size - 1];
      res.writeHead(range ? 206 : 200, { ...headers, 'Content-Length': end - start + 1, ...(range && { 'Content-Range': `bytes ${start}-${end}/${size}` }) });
      if (req.method === 'HEAD' || size === 0) return res.end();
      createReadStream(file, { start, end }).pipe(res);
    } catch {
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end('not found');
    }
  });
  return new Promise((resolve) => server.listen(port, host, () => resolve(server)));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const server = await startServer();
  const { port, address } = server.address();
  console.log(`Arrowsmith demo: http://${address === '127.0.0.1' ? 'localhost' : address}:${port}/`);
}
