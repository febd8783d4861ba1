// First contentful paint of the login page, N cold loads (new context each) in one browser,
// with the resource waterfall of the last one:  node e2e/fcp.mjs [runs]
import { launch } from './browser.mjs';
import { serve } from './serve.mjs';

const dist = new URL('../dist/console/', import.meta.url).pathname;
const server = await serve({ dist, api: process.env.PARTNERD_URL ?? 'http://127.0.0.1:8080' });
const base = `http://127.0.0.1:${server.address().port}`;
const browser = await launch();
const runs = Number(process.argv[2] ?? 7);
const fcps = [];
const baseline = [];
let waterfall = [];
const paint = () => new Promise((resolve) => {
  new PerformanceObserver((l) => { resolve(l.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1); })
    .observe({ type: 'paint', buffered: true });
});
try {
  // A one-heading page from the same server: what this machine's load alone costs.
  for (let i = 0; i < runs; i++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(base + '/healthz-baseline.html');
    baseline.push(await page.evaluate(paint));
    await context.close();
  }
  for (let i = 0; i < runs; i++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(base + '/login');
    await page.getByRole('heading', { name: 'Sign in to partnerd' }).waitFor();
    const r = await page.evaluate(() => new Promise((resolve) => {
      new PerformanceObserver((l) => {
        resolve({
          fcp: l.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1,
          res: performance.getEntriesByType('resource').map((e) => [e.name.replace(location.origin, ''), Math.round(e.startTime), Math.round(e.responseEnd)]),
          dcl: Math.round(performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd),
        });
      }).observe({ type: 'paint', buffered: true });
    }));
    fcps.push(r.fcp);
    waterfall = r;
    await context.close();
  }
} finally {
  await browser.close();
  server.close();
}
const stats = (xs) => { xs.sort((a, b) => a - b); return `min ${xs[0].toFixed(0)}, median ${xs[Math.floor(xs.length / 2)].toFixed(0)}, max ${xs.at(-1).toFixed(0)}`; };
console.log(`login page FCP ms over ${runs} cold loads: ${stats(fcps)}`);
console.log(`baseline page FCP ms (static HTML, same server): ${stats(baseline)}`);
console.log(`last load: DOMContentLoaded ${waterfall.dcl} ms, FCP ${waterfall.fcp.toFixed(0)} ms`);
for (const [n, s, e] of waterfall.res) console.log(`  ${String(s).padStart(5)} → ${String(e).padStart(5)} ms  ${n}`);
