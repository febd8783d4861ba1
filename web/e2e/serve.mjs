// A stand-in for what the Go server will do with the embedded dist/: SPA fallback to
// index.html, immutable caching of hashed assets, a strict Content-Security-Policy, and /api
// passed to a real `partnerd serve` (PARTNERD_URL). For the spike's browser checks only.
import { randomBytes } from 'node:crypto';
import { createServer, request } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';

export const CSP = (nonce) => [
  "default-src 'self'",
  "script-src 'self'",
  `style-src 'self' 'nonce-${nonce}'`,
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const types = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.json': 'application/json' };

export function serve({ dist, api, port = 0, csp = CSP }) {
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname.startsWith('/api/') || url.pathname === '/openapi.json') {
      const up = new URL(url.pathname + url.search, api);
      const p = request(up, { method: req.method, headers: { ...req.headers, host: up.host } }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      p.on('error', () => { res.writeHead(502).end(); });
      req.pipe(p);
      return;
    }
    if (url.pathname === '/healthz-baseline.html') {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end('<!doctype html><html lang="en"><title>baseline</title><h1>partnerd</h1></html>');
      return;
    }
    const rel = normalize(url.pathname).replace(/^\/+/, '');
    let file = join(dist, rel);
    let body;
    try {
      if (!rel || rel.startsWith('..')) throw new Error('index');
      body = await readFile(file);
    } catch {
      if (rel.startsWith('assets/')) { res.writeHead(404).end(); return; }
      file = join(dist, 'index.html'); // SPA fallback
      body = await readFile(file);
    }
    const hashed = rel.startsWith('assets/');
    const nonce = randomBytes(16).toString('base64');
    if (file.endsWith('index.html')) body = body.toString('utf8').replaceAll('__CSP_NONCE__', nonce);
    res.writeHead(200, {
      'Content-Type': types[extname(file)] ?? 'application/octet-stream',
      'Cache-Control': hashed ? 'public, max-age=31536000, immutable' : 'no-cache',
      'Content-Security-Policy': csp(nonce),
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
    });
    res.end(body);
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}
