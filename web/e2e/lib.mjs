// What the browser specs share: the browser, signing in, the API for setting data up, checks,
// axe-core and screenshots. Each spec in specs/ exports `title` and a default async function
// that takes this harness; run.mjs runs them in name order against one `partnerd serve`.
import { mkdirSync } from 'node:fs';
import { AxeBuilder } from '@axe-core/playwright';
import { launch } from './browser.mjs';

export const out = new URL('./out/', import.meta.url).pathname;
mkdirSync(out, { recursive: true });

/** A fresh name for the data a spec creates, so specs never collide. */
export const unique = (prefix) => `${prefix} ${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

export async function harness() {
  const base = process.env.PARTNERD_URL ?? 'http://127.0.0.1:8080';
  const owner = { email: process.env.EMAIL ?? 'owner@demo.partnerd.test', password: process.env.PASSWORD ?? '' };
  const browser = await launch();
  let failures = 0;
  const problems = [];
  /** The pages still open: a spec that throws leaves a screenshot of each. */
  const open = new Set();

  const check = (ok, what) => {
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
    if (!ok) failures++;
    return ok;
  };

  /** Calls the API as a token holder (setting data up, reading what a page did). */
  async function call(token, method, path, body, headers = {}) {
    const res = await fetch(base + path, {
      method,
      headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...(body ? { 'Content-Type': 'application/json' } : {}), ...headers },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    const json = text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text;
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${typeof json === 'string' ? json : JSON.stringify(json)}`);
    return json;
  }

  async function token({ email, password }) {
    return (await call(null, 'POST', '/api/auth/login', { email, password })).accessToken;
  }

  /** A page in a browser context of its own; console errors and CSP violations are recorded. */
  async function newPage({ colorScheme = 'light', viewport = { width: 1280, height: 800 }, label = 'page', expect401 = false, contextOptions = {} } = {}) {
    // Reduced motion: dialogs and notices appear at once, so axe never measures text mid-fade.
    const context = await browser.newContext({ viewport, colorScheme, reducedMotion: 'reduce', ...contextOptions });
    const page = await context.newPage();
    open.add(page);
    page.on('close', () => { open.delete(page); });
    const problem = (p) => { problems.push(p); console.log('     ' + p); };
    page.on('console', (m) => {
      if (expect401 && m.text().includes('status of 401')) return;
      // A refusal a page handles (the 403 view, a missing row, a conflict, field errors beside
      // their inputs, a file too large or of a type not taken) is not an error of the app; the
      // browser still logs the failed load.
      if (/status of 4(0[349]|1[35]|22)/.test(m.text())) return;
      if (m.type() === 'error' || m.type() === 'warning') problem(`[${label}] console ${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => { problem(`[${label}] page error: ${e.message}`); });
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => {
        console.error(`CSP ${e.violatedDirective} blocked ${e.blockedURI || 'inline'} (${e.sourceFile}:${e.lineNumber})`);
      });
    });
    return { page, context };
  }

  /** Signs in through the login page and waits for the first dashboard. */
  async function signIn(page, { email, password }) {
    await page.goto(base + '/login');
    await page.getByLabel(/^Email/).fill(email);
    await page.getByLabel(/^Password/).and(page.locator('input')).fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: /^Welcome/ }).waitFor();
  }

  /** axe-core (WCAG 2.1 A and AA): no serious or critical violation. */
  async function axe(page, name) {
    const r = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
    const bad = r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    for (const v of r.violations) console.log(`     axe ${v.id} (${v.impact}) x${v.nodes.length}: ${v.help} — ${v.nodes[0]?.target.join(' ')}`);
    check(bad.length === 0, `axe on ${name}: ${bad.length} serious or critical violation(s), ${r.violations.length - bad.length} other`);
  }

  const shot = (page, name) => page.screenshot({ path: `${out}${name}.png`, fullPage: true });

  return {
    base, owner, browser, check, call, token, newPage, signIn, axe, shot,
    failures: () => failures,
    /** Screenshots of every page still open (after a spec threw), then closes them. */
    async wreckage(name) {
      let i = 0;
      for (const page of open) {
        await page.screenshot({ path: `${out}failed-${name}-${++i}.png`, fullPage: true }).catch(() => undefined);
        await page.context().close().catch(() => undefined);
      }
      if (i) console.log(`     ${i} screenshot(s) of the open pages: e2e/out/failed-${name}-*.png`);
    },
    problems,
    close: () => browser.close(),
  };
}
