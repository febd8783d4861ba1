// The browser tests: every spec in specs/, in name order, in Debian's chromium against a real
// `partnerd serve` (make test-e2e starts it). SPEC=regexp runs the specs whose file name matches it.
//   PARTNERD_URL=http://127.0.0.1:8080 EMAIL=... PASSWORD=... node e2e/run.mjs
import { readdirSync } from 'node:fs';
import { harness } from './lib.mjs';

const dir = new URL('./specs/', import.meta.url);
const only = process.env.SPEC;
const files = readdirSync(dir).filter((f) => f.endsWith('.mjs') && (!only || new RegExp(only).test(f))).sort();
const t = await harness();
const started = Date.now();
try {
  for (const f of files) {
    const spec = await import(new URL(f, dir));
    console.log(`\n# ${f}: ${spec.title}`);
    const before = Date.now();
    try {
      await spec.default(t);
    } catch (err) {
      t.check(false, `${f} threw: ${err instanceof Error ? err.stack : String(err)}`);
      await t.wreckage(f.replace(/\.mjs$/, ''));
    }
    console.log(`   (${((Date.now() - before) / 1000).toFixed(1)} s)`);
  }
} finally {
  await t.close();
}
t.check(t.problems.length === 0, `no console errors or CSP violations (${t.problems.length})`);
console.log(`\n${files.length} spec(s) in ${((Date.now() - started) / 1000).toFixed(1)} s, ${t.failures()} failure(s)`);
process.exitCode = t.failures() ? 1 : 0;
