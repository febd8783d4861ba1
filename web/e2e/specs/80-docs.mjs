// The API reference at /docs: it renders the live OpenAPI document with the renderer partnerd
// serves itself, every request stays on partnerd's origin (it works offline) and the page's
// Content-Security-Policy refuses nothing the reference needs.
//
// The page gets a context of its own rather than t.newPage: the renderer logs warnings of its
// own (its validator's opinion of the document), and it probes once whether eval is allowed
// (zod's `new Function("")` feature test), which the policy refuses on purpose and the renderer
// then does without. That one refusal is expected; any other fails the spec.
import { out } from '../lib.mjs';

export const title = 'API reference at /docs, offline';

/** The renderer's eval probe: script-src refusing eval from the bundle itself. */
const evalProbe = (v) => v.directive === 'script-src' && v.blocked === 'eval' && new URL(v.source).pathname === '/docs/scalar.js';

export default async function (t) {
  const context = await t.browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => { errors.push(e.message); });
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  const origin = new URL(t.base).origin;
  const requests = [];
  const foreign = [];
  page.on('request', (r) => {
    requests.push(r.url());
    const u = new URL(r.url());
    if (u.protocol !== 'data:' && u.protocol !== 'blob:' && u.origin !== origin) foreign.push(r.url());
  });
  const violations = [];
  await page.exposeFunction('reportViolation', (v) => { violations.push(v); });
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      window.reportViolation({ directive: e.effectiveDirective, blocked: e.blockedURI || 'inline', source: e.sourceFile });
    });
  });
  try {
    const res = await page.goto(t.base + '/docs');
    const csp = res?.headers()['content-security-policy'] ?? '';
    t.check(res?.status() === 200 && csp.includes("script-src 'self'") && csp.includes("connect-src 'self'"),
      `/docs answers 200 with its own policy: ${csp}`);

    // The renderer draws the document: the Partners tag and one of its operations.
    await page.getByRole('heading', { name: 'partnerd API' }).first().waitFor({ timeout: 90000 });
    const partners = page.getByText('Partners', { exact: true }).first();
    await partners.waitFor({ timeout: 90000 });
    await partners.click();
    const operation = page.getByText(/List partner organisations/).first();
    await operation.waitFor({ timeout: 90000 });
    t.check(true, 'the reference renders the Partners tag and its list-partners operation');
    // The viewport only: the whole reference is too tall a page to shoot in time.
    await page.screenshot({ path: `${out}docs.png`, timeout: 90000 });

    const local = requests.filter((u) => u.startsWith(origin));
    t.check(local.some((u) => new URL(u).pathname === '/openapi.json'), 'the reference reads /openapi.json');
    t.check(local.some((u) => new URL(u).pathname === '/docs/scalar.js'), 'the renderer comes from /docs/scalar.js');
    t.check(foreign.length === 0, `no request leaves partnerd's origin (${requests.length} requests${foreign.length ? '; elsewhere: ' + foreign.join(', ') : ''})`);
    const refused = violations.filter((v) => !evalProbe(v)).map((v) => `${v.directive} blocked ${v.blocked} (${v.source})`);
    t.check(refused.length === 0, `the page's policy refused nothing the reference needs${refused.length ? ': ' + refused.join('; ') : ''}` +
      ` (${violations.length - refused.length} eval probe(s) refused as intended)`);
    t.check(errors.length === 0, `no page or console errors${errors.length ? ': ' + errors.join('; ') : ''}`);
  } finally {
    await context.close();
  }
}
