// Proves that playwright-core drives Debian's chromium and that axe-core runs in it:
// node e2e/smoke.mjs [url] [screenshot.png]
import { AxeBuilder } from '@axe-core/playwright';
import { launch } from './browser.mjs';

const url = process.argv[2] ?? 'data:text/html,' + encodeURIComponent(
  '<!doctype html><html lang="en"><title>smoke</title><main><h1>partnerd</h1><button>Sign in</button></main></html>');
const out = process.argv[3] ?? 'smoke.png';

const browser = await launch();
try {
  // AxeBuilder needs a page from an explicit context, not browser.newPage().
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(url);
  await page.screenshot({ path: out, fullPage: true });
  const axe = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21aa']).analyze();
  console.log(`browser ${browser.version()}; title "${await page.title()}"; screenshot ${out}; axe violations: ${axe.violations.length}`);
  for (const v of axe.violations) console.log(`  ${v.id} (${v.impact}): ${v.nodes.length} node(s) — ${v.help}`);
  if (axe.violations.length) process.exitCode = 1;
} finally {
  await browser.close();
}
