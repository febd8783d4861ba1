import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

// The Go server embeds dist/ and serves it at /; the dev server proxies the API to a local
// `partnerd serve` (PARTNERD_URL, default http://127.0.0.1:8080).
const api = process.env.PARTNERD_URL ?? 'http://127.0.0.1:8080';

// A visitor without a session lands on the login page: index.html preloads its lazy chunk and
// the chunks it imports, so they download and compile while the entry chunk runs.
function preloadRoute(route: string): Plugin {
  return {
    name: 'partnerd:preload-route',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(_html, ctx) {
        const bundle = ctx.bundle ?? {};
        const byName = new Map(Object.values(bundle).map((c) => [c.fileName, c]));
        const chunk = Object.values(bundle).find((c) => c.type === 'chunk' && c.facadeModuleId?.endsWith(route));
        if (chunk?.type !== 'chunk') throw new Error(`preloadRoute: no chunk for ${route}`);
        const files = new Set<string>();
        const walk = (name: string) => {
          const c = byName.get(name);
          if (c?.type !== 'chunk' || files.has(name) || c.isEntry) return;
          files.add(name);
          c.imports.forEach(walk);
        };
        walk(chunk.fileName);
        return [...files].map((f) => ({ tag: 'link', attrs: { rel: 'modulepreload', crossorigin: true, href: `/${f}` }, injectTo: 'head' as const }));
      },
    },
  };
}

// The API reference at /docs is Scalar's standalone browser bundle (MIT), copied into the build
// as docs/scalar.js so the binary serves it itself: no CDN, the reference works offline.
function apiReference(): Plugin {
  return {
    name: 'partnerd:api-reference',
    apply: 'build',
    async generateBundle() {
      const file = createRequire(import.meta.url).resolve('@scalar/api-reference/browser/standalone.js');
      this.emitFile({ type: 'asset', fileName: 'docs/scalar.js', source: await readFile(file) });
    },
  };
}

export default defineConfig({
  plugins: [react(), preloadRoute('src/app/Login.tsx'), apiReference()],
  build: {
    outDir: 'dist/console',
    assetsDir: 'assets', // hashed names: served with Cache-Control: immutable
    sourcemap: false,
    modulePreload: { polyfill: false }, // the polyfill is an inline script a strict CSP refuses
    chunkSizeWarningLimit: 250,
    manifest: true, // dist/console/.vite/manifest.json: scripts/size.mjs follows each route's imports
  },
  server: {
    proxy: {
      '/api': api,
      '/openapi.json': api,
    },
  },
});
