// The playbook editor with a 200-node graph: saves one through the API, opens it in the editor,
// records a Chromium Performance trace (CDP tracing, through Playwright) while a node is dragged
// across the canvas, and reports the drag's longest main-thread task (input handling, React's
// update, style, layout and paint of one frame) and the longest interval between frames. Run by
// bench/editor-drag.sh against a real partnerd serve; usage: node e2e/editor-drag.mjs <url> [drags]
import { launch } from './browser.mjs';

const base = process.argv[2] ?? 'http://127.0.0.1:8080';
const drags = Number(process.argv[3] ?? 3);
const email = process.env.EMAIL ?? 'owner@demo.partnerd.test';
const password = process.env.PASSWORD ?? '';

async function call(token, method, path, body) {
  const res = await fetch(base + path, { method, headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), 'Content-Type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** 200 nodes: a trigger fanning out to four chains of 48 steps that join, then a chain of 5. */
function bigGraph() {
  const nodes = [{ id: 'start', kind: 'trigger', name: 'Deal won' }, { id: 'fan', kind: 'parallel', name: 'Fan out' }];
  const edges = [{ from: 'start', to: 'fan' }];
  const step = (id, i) => (i % 3 === 0
    ? { id, kind: 'create_task', name: `Task ${id}`, createTask: { title: 'Follow up {{.event.id}}', assignee: 'partner' } }
    : i % 3 === 1 ? { id, kind: 'emit_event', name: `Emit ${id}`, emitEvent: { type: 'bench.step' } }
      : { id, kind: 'wait', name: `Wait ${id}`, wait: { duration: '1h' } });
  nodes.push({ id: 'meet', kind: 'join', name: 'Meet' });
  for (let b = 0; b < 4; b++) {
    let prev = 'fan';
    for (let i = 0; i < 48; i++) {
      const id = `b${b}_${i}`;
      nodes.push(step(id, i));
      edges.push({ from: prev, to: id });
      prev = id;
    }
    edges.push({ from: prev, to: 'meet' });
  }
  let prev = 'meet';
  for (let i = 0; i < 5; i++) {
    const id = `tail_${i}`;
    nodes.push(step(id, i + 1));
    edges.push({ from: prev, to: id });
    prev = id;
  }
  return { trigger: { eventType: 'deal.won' }, nodes, edges };
}

const token = (await call(null, 'POST', '/api/auth/login', { email, password })).accessToken;
const graph = bigGraph();
const pb = await call(token, 'POST', '/api/playbooks', { name: `Drag bench ${Date.now().toString(36)}`, graph });
console.log(`playbook ${pb.id}: ${graph.nodes.length} nodes, ${graph.edges.length} edges`);

const browser = await launch();
const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
const page = await context.newPage();
await page.goto(base + '/login');
await page.getByLabel(/^Email/).fill(email);
await page.getByLabel(/^Password/).and(page.locator('input')).fill(password);
await page.getByRole('button', { name: 'Sign in' }).click();
await page.getByRole('heading', { level: 1, name: /^Welcome/ }).waitFor();
await page.goto(`${base}/playbooks/${pb.id}/edit`);
await page.locator('.react-flow__node').first().waitFor();
await page.waitForTimeout(1500);
const rendered = await page.locator('.react-flow__node').count();
console.log(`the editor shows ${rendered} nodes (fit to the canvas)`);

const results = [];
for (let d = 0; d < drags; d++) {
  // A node in the middle of the drawing, dragged 300 px and back in 120 mouse moves.
  const target = page.locator('.react-flow__node[data-id="b1_20"]');
  const box = await target.boundingBox();
  const x0 = box.x + box.width / 2;
  const y0 = box.y + box.height / 2;
  await page.evaluate(() => {
    const w = /** @type {any} */ (window);
    w.__frames = [];
    let last = performance.now();
    const tick = (t) => { w.__frames.push(t - last); last = t; if (w.__frames.length < 100000 && w.__measuring) requestAnimationFrame(tick); };
    w.__measuring = true;
    requestAnimationFrame(tick);
  });
  await browser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'disabled-by-default-devtools.timeline.frame', 'toplevel', 'blink.user_timing'] });
  await page.mouse.move(x0, y0);
  await page.mouse.down();
  for (let i = 1; i <= 60; i++) await page.mouse.move(x0 + i * 5, y0 + i * 2);
  for (let i = 59; i >= 0; i--) await page.mouse.move(x0 + i * 5, y0 + i * 2);
  await page.mouse.up();
  await page.waitForTimeout(200);
  const buf = await browser.stopTracing();
  const frames = await page.evaluate(() => { const w = /** @type {any} */ (window); w.__measuring = false; return w.__frames.slice(1); });

  const { traceEvents } = JSON.parse(buf.toString());
  const threads = new Map();
  for (const e of traceEvents) if (e.ph === 'M' && e.name === 'thread_name') threads.set(`${e.pid}:${e.tid}`, e.args.name);
  // The renderer's main thread is the one that handled the mouse events.
  const mainKeys = new Set(traceEvents.filter((e) => e.name === 'EventDispatch' && e.args?.data?.type === 'mousemove').map((e) => `${e.pid}:${e.tid}`));
  const tasks = traceEvents.filter((e) => e.ph === 'X' && mainKeys.has(`${e.pid}:${e.tid}`) && /RunTask$/.test(e.name) && typeof e.dur === 'number');
  const moves = traceEvents.filter((e) => e.name === 'EventDispatch' && e.args?.data?.type === 'mousemove');
  const durs = tasks.map((e) => e.dur / 1000).sort((a, b) => a - b);
  const pct = (p) => durs[Math.min(durs.length - 1, Math.floor(durs.length * p))] ?? 0;
  const longFrames = frames.filter((f) => f > 16.7).length;
  const r = {
    mousemoves: moves.length, tasks: tasks.length, longestTaskMs: durs.at(-1) ?? 0, p95TaskMs: pct(0.95), medianTaskMs: pct(0.5),
    frames: frames.length, longestFrameIntervalMs: Math.max(...frames), framesOver16ms: longFrames,
    thread: [...mainKeys].map((k) => threads.get(k)).join(','),
  };
  results.push(r);
  console.log(`drag ${d + 1}: ${r.mousemoves} mousemove events on ${r.thread}; main-thread tasks: longest ${r.longestTaskMs.toFixed(1)} ms, p95 ${r.p95TaskMs.toFixed(1)} ms, median ${r.medianTaskMs.toFixed(2)} ms; ` +
    `frames: ${r.frames}, longest interval ${r.longestFrameIntervalMs.toFixed(1)} ms, ${r.framesOver16ms} over 16.7 ms`);
}
const worst = Math.max(...results.map((r) => r.longestTaskMs));
console.log(`longest main-thread task of any drag frame: ${worst.toFixed(1)} ms (budget 16 ms): ${worst < 16 ? 'within' : 'OVER'}`);
console.log(`load average: ${(await import('node:fs')).readFileSync('/proc/loadavg', 'utf8').trim()}`);
await browser.close();
