// First contentful paint of the login page served by a running `partnerd serve`: N cold loads,
// each in a new browser context, beside a reference from the same server in the same run: the
// same /login document with JavaScript off, which paints its <noscript> line from the HTML and
// its stylesheet alone. The reference is what this machine and server take to paint a static page; the ratio
// login/reference is what the console's scripts cost, comparable across machines.
//   node e2e/fcp.mjs [url] [runs]        url defaults to $PARTNERD_URL, runs to 15
// bench/console-fcp.sh starts a partnerd and runs this against it.
import { launch } from './browser.mjs';

const base = (process.argv[2] ?? process.env.PARTNERD_URL ?? 'http://127.0.0.1:8080').replace(/\/$/, '');
const runs = Number(process.argv[3] ?? 15);
if (!Number.isInteger(runs) || runs < 1) throw new Error(`runs must be a positive integer, not ${process.argv[3]}`);

/** The page's paint entry, polled from here (a page without JavaScript runs no observer of its
 * own); -1 when the browser reports none within 5 s. */
async function readFCP(page) {
  for (const until = Date.now() + 5000; Date.now() < until; await new Promise((r) => setTimeout(r, 20))) {
    const t = await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1);
    if (t >= 0) return t;
  }
  return -1;
}

const browser = await launch();
const login = [];
const reference = [];
let last = null;
try {
  for (let i = 0; i < runs; i++) {
    // Alternate, so that a change in the machine's load falls on both series alike.
    {
      const context = await browser.newContext({ javaScriptEnabled: false });
      const page = await context.newPage();
      await page.goto(base + '/login'); // the load event: its stylesheet is in; the noscript line paints
      reference.push(await readFCP(page));
      await context.close();
    }
    {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(base + '/login');
      const heading = page.getByRole('heading', { name: 'Sign in to partnerd' });
      await heading.waitFor({ timeout: 30000 }).catch(async (err) => {
        if (await page.getByText('built without the web console').count()) {
          throw new Error(`${base} was built without the console: make web, then build partnerd again`);
        }
        throw err;
      });
      login.push(await readFCP(page));
      last = await page.evaluate(() => ({
        res: performance.getEntriesByType('resource').map((e) => [e.name.replace(location.origin, ''), Math.round(e.startTime), Math.round(e.responseEnd)]),
        dcl: Math.round(performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd),
      }));
      await context.close();
    }
  }
} finally {
  await browser.close();
}

const missing = [...login, ...reference].filter((x) => x < 0).length;
if (missing) console.log(`${missing} load(s) reported no paint entry; left out`);
const quantile = (xs, q) => xs[Math.min(xs.length - 1, Math.ceil(q * xs.length) - 1)];
const summary = (xs) => {
  const s = xs.filter((x) => x >= 0).sort((a, b) => a - b);
  return { n: s.length, min: s[0], median: quantile(s, 0.5), p95: quantile(s, 0.95), max: s.at(-1) };
};
const ms = (x) => `${x.toFixed(0)} ms`.padStart(8);
const show = (name, s) => console.log(`${name.padEnd(34)} median ${ms(s.median)}   p95 ${ms(s.p95)}   (min ${s.min.toFixed(0)}, max ${s.max.toFixed(0)}, ${s.n} loads)`);
const l = summary(login);
const r = summary(reference);
console.log(`first contentful paint, ${base}, ${runs} cold loads each`);
show('/login (the console)', l);
show('reference (/login, JavaScript off)', r);
console.log(`ratio login/reference: median ${(l.median / r.median).toFixed(1)}x, p95 ${(l.p95 / r.p95).toFixed(1)}x`);
if (last) {
  console.log(`last console load: DOMContentLoaded ${last.dcl} ms`);
  for (const [n, s, e] of last.res) console.log(`  ${String(s).padStart(5)} → ${String(e).padStart(5)} ms  ${n}`);
}
