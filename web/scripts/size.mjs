// Gzipped JS that a visit loads: the entry chunk, and each lazy route with every chunk it
// imports, read from Vite's manifest. Exits 1 when login + first dashboard pass the budget.
// Run after `vite build`.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';

const dist = new URL('../dist/console/', import.meta.url).pathname;
const BUDGET = 250 * 1024;
const manifest = JSON.parse(readFileSync(join(dist, '.vite/manifest.json'), 'utf8'));
const gz = (f) => gzipSync(readFileSync(join(dist, f)), { level: 9 }).length;
const kb = (n) => (n / 1024).toFixed(1) + ' KB';

/** Files a manifest entry loads, with its static imports, transitively. */
function closure(key, seen = new Set()) {
  const m = manifest[key];
  if (!m || seen.has(m.file)) return seen;
  seen.add(m.file);
  for (const css of m.css ?? []) seen.add(css);
  for (const i of m.imports ?? []) closure(i, seen);
  return seen;
}
const sum = (files, ext) => [...files].filter((f) => f.endsWith(ext)).reduce((s, f) => s + gz(f), 0);
const union = (...sets) => new Set(sets.flatMap((s) => [...s]));

const entry = closure('index.html');
const route = (path) => closure(`src/${path}.tsx`);
const frame = union(route('app/Layout'), route('app/Gate'));
const visits = {
  'entry': entry,
  'login page': union(entry, route('app/Login')),
  'first dashboard': union(entry, frame, route('pages/console/Dashboard')),
  'login then dashboard': union(entry, route('app/Login'), frame, route('pages/console/Dashboard')),
  'portal dashboard': union(entry, route('app/Login'), frame, route('pages/portal/Dashboard')),
};
for (const [name, files] of Object.entries(visits)) {
  console.log(`${name.padEnd(22)} JS ${kb(sum(files, '.js')).padStart(9)} gz   CSS ${kb(sum(files, '.css')).padStart(8)} gz   (${files.size} files)`);
}
const total = Math.max(sum(visits['login then dashboard'], '.js'), sum(visits['portal dashboard'], '.js'));
console.log(`budget: ${kb(total)} of ${kb(BUDGET)} gzipped JS for login + first dashboard`);
if (total > BUDGET) process.exitCode = 1;
