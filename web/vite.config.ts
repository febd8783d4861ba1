import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The Go server embeds dist/ and serves it at /; the dev server proxies the API to a local
// `partnerd serve` (PARTNERD_URL, default http://127.0.0.1:8080).
const api = process.env.PARTNERD_URL ?? 'http://127.0.0.1:8080';

export default defineConfig({
  plugins: [react()],
  build: {
    outDir: 'dist',
    assetsDir: 'assets', // hashed names: served with Cache-Control: immutable
    sourcemap: false,
    modulePreload: { polyfill: false }, // the polyfill is an inline script a strict CSP refuses
    chunkSizeWarningLimit: 250,
    manifest: true, // dist/.vite/manifest.json: scripts/size.mjs follows each route's imports
  },
  server: {
    proxy: {
      '/api': api,
      '/openapi.json': api,
    },
  },
});
