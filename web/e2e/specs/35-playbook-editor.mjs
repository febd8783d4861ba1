// The playbook editor as an operator uses it (after setting a new signing secret for the
// playbooks' webhook calls, shown once): the deal-won playbook drawn from an empty canvas
// (trigger, condition, wait, two actions), a problem the server finds marked on its node and
// fixed, a simulation whose path is marked on the graph, publish and enable; then a deal won
// through the API starts a run whose path the run's page draws.
import { unique } from '../lib.mjs';

export const title = 'playbook editor: build from empty, problem on a node, simulate, publish, a real run drawn';

/** Polls until the value fn returns satisfies ok, or gives the last one after twenty seconds. */
async function until(fn, ok) {
  let v;
  for (let i = 0; i < 100; i++) {
    v = await fn();
    if (ok(v)) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
  return v;
}

export default async function (t) {
  const ownerToken = await t.token(t.owner);
  const { page, context } = await t.newPage({ label: 'playbook editor', viewport: { width: 1440, height: 1000 } });
  await t.signIn(page, t.owner);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Playbooks', exact: true }).click();
  await page.getByRole('heading', { level: 1, name: 'Playbooks' }).waitFor();

  // A new signing secret for the playbooks' webhook calls, shown once.
  await page.getByRole('button', { name: 'Set a new signing secret' }).click();
  await page.getByRole('dialog', { name: 'Set a new signing secret?' }).getByRole('button', { name: 'Set a new signing secret' }).click();
  const signing = page.getByTestId('secret-once');
  await signing.waitFor();
  const signingSecret = (await signing.innerText()).trim();
  t.check(/^whsec_\S{16,}$/.test(signingSecret), `setting a new signing secret for webhook calls shows it once (${signingSecret.slice(0, 10)}…)`);
  await page.getByRole('button', { name: 'I have stored it' }).click();
  await signing.waitFor({ state: 'detached' });
  t.check(!(await page.content()).includes(signingSecret), 'closed, the signing secret is gone from the page');

  await page.getByRole('link', { name: 'New playbook' }).click();
  await page.getByRole('heading', { level: 1, name: 'New playbook' }).waitFor();
  const name = unique('Deal won');
  await page.getByLabel(/^Name/).first().fill(name);

  const node = (id) => page.locator(`.react-flow__node[data-id="${id}"]`);
  const panel = page.locator('#pb-panel').locator('xpath=ancestor::div[contains(@class,"mantine-Card-root")]');
  const add = async (kind, id) => {
    await page.getByRole('button', { name: `Add ${kind}`, exact: true }).click();
    await node(id).waitFor();
  };
  const pick = async (label, option) => {
    await panel.getByLabel(label).first().click();
    await page.getByRole('option', { name: option, exact: true }).click();
  };

  // An empty canvas: the server finds the trigger missing.
  await page.locator('[data-testid="problem-count"]').waitFor();
  t.check(await page.getByText(/exactly one trigger/).count() > 0, 'an empty graph: the server says a trigger is missing');

  await add('trigger', 'trigger');
  await panel.getByLabel(/^Name/).fill('Deal won');
  await panel.getByLabel(/^Starts on event type/).fill('deal.won');
  await page.keyboard.press('Escape');

  await add('condition', 'condition_1');
  await panel.getByLabel(/^Name/).fill('Big deal?');
  await panel.getByLabel(/^Expression/).fill('event.payload.amountMinor >= 1000000');

  await add('wait', 'wait_1');
  await panel.getByLabel(/^Name/).fill('Settle');
  await panel.getByLabel(/^Duration/).fill('soon'); // not a duration: the server will say so

  await add('create task', 'create_task_1');
  await panel.getByLabel(/^Name/).fill('Kick-off task');
  await pick(/^Assignee/, 'partner');
  await panel.getByLabel(/^Title/).fill('Plan the kick-off with ');
  await panel.getByLabel('Insert a variable into Title').click();
  await page.getByRole('option', { name: 'event.payload.customerCompany', exact: true }).click();

  await add('emit event', 'emit_event_1');
  await panel.getByLabel(/^Name/).fill('Announce');
  await panel.getByLabel(/^Type/).fill('sales.win_announced');
  await page.keyboard.press('Escape');

  // Lay the nodes out, then connect them by dragging from handle to handle.
  await page.getByRole('button', { name: 'Auto-layout' }).click();
  await page.waitForTimeout(400);
  const connect = async (from, to) => {
    const a = await node(from).locator('.react-flow__handle.source').boundingBox();
    const b = await node(to).locator('.react-flow__handle.target').boundingBox();
    await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
    await page.mouse.down();
    await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2 + 10, { steps: 5 });
    await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 5 });
    await page.mouse.up();
  };
  await connect('trigger', 'condition_1');
  await connect('condition_1', 'wait_1'); // true: the first branch a condition needs
  await connect('condition_1', 'emit_event_1'); // false
  await connect('wait_1', 'create_task_1');
  await page.getByRole('button', { name: 'Auto-layout' }).click();
  const edges = await page.locator('.react-flow__edge').count();
  t.check(edges === 4, `four edges drawn by dragging (${edges})`);
  const labels = await page.locator('.react-flow__edge-text').allTextContents();
  t.check(labels.some((l) => l.startsWith('true')) && labels.some((l) => l.startsWith('false')), `the condition's edges are labelled true and false: ${labels.join(', ')}`);

  // The one problem left is marked on the wait node, with the server's message; publish waits.
  const waitNode = node('wait_1').locator('.pb-node');
  await page.waitForFunction(() => document.querySelector('[data-node-id="wait_1"]')?.getAttribute('data-problems') !== '0'
    && document.querySelectorAll('.pb-node:not([data-problems="0"])').length === 1, null, { timeout: 10_000 });
  const msg = await node('wait_1').locator('.pb-msg').first().innerText();
  t.check(/duration/i.test(msg), `the wait node shows its problem: ${msg}`);
  t.check(await waitNode.evaluate((el) => el.classList.contains('pb-problem')), 'the wait node is marked');
  t.check(await page.getByRole('button', { name: 'Publish' }).isDisabled(), 'publish is disabled while a problem remains');
  await t.shot(page, 'playbook-editor-problem');
  await t.axe(page, 'playbook editor');

  // Fix it in the side panel.
  await node('wait_1').click();
  await panel.getByLabel(/^Duration/).fill('1d');
  await page.locator('[data-testid="problem-count"]').waitFor({ state: 'detached' });
  await page.waitForFunction(() => document.querySelectorAll('.pb-node:not([data-problems="0"])').length === 0);
  await page.getByRole('button', { name: 'Publish' }).and(page.locator(':enabled')).waitFor();
  t.check(true, 'fixed: no problem left, publish enabled');

  // Undo brings the problem back, redo removes it again.
  await page.getByRole('button', { name: 'Undo' }).click();
  await page.locator('[data-testid="problem-count"]').waitFor();
  await page.getByRole('button', { name: 'Redo' }).click();
  await page.locator('[data-testid="problem-count"]').waitFor({ state: 'detached' });
  t.check(true, 'undo restores the broken duration (a problem again), redo the fix');

  // Copy and paste of a selection: Ctrl+C / Ctrl+V gives new nodes (fresh ids) and the edge between them.
  const nodeIds = () => page.locator('.react-flow__node').evaluateAll((els) => els.map((e) => e.getAttribute('data-id')));
  const edgeCount = () => page.locator('.react-flow__edge').count();
  const before = await nodeIds();
  await node('wait_1').click();
  await node('create_task_1').click({ modifiers: ['Control'] });
  await page.keyboard.press('Control+c');
  await page.keyboard.press('Control+v');
  await page.waitForFunction((n) => document.querySelectorAll('.react-flow__node').length === n + 2, before.length, { timeout: 5_000 });
  const pasted = (await nodeIds()).filter((id) => !before.includes(id));
  t.check(pasted.includes('wait_2') && pasted.includes('create_task_2'), `Ctrl+C / Ctrl+V pastes the selection as new nodes: ${pasted.join(', ')}`);
  t.check(await edgeCount() === 5, `the edge between the copied nodes is pasted with them (${await edgeCount()} edges)`);

  // Keyboard deletion: Delete removes the selected (pasted) nodes and their edge.
  await page.keyboard.press('Delete');
  await page.waitForFunction((n) => document.querySelectorAll('.react-flow__node').length === n, before.length, { timeout: 5_000 });
  t.check((await nodeIds()).every((id) => before.includes(id)) && await edgeCount() === 4, 'Delete removes the pasted nodes and the edge between them');
  // Delete on a connected node removes it with both its edges; Ctrl+Z brings all three back.
  await node('wait_1').click();
  await page.keyboard.press('Delete');
  await node('wait_1').waitFor({ state: 'detached' });
  t.check(await edgeCount() === 2, `Delete removes the wait node and its two edges (${await edgeCount()} edges left)`);
  await node('condition_1').click();
  await page.keyboard.press('Control+z');
  await node('wait_1').waitFor();
  t.check(await edgeCount() === 4, `Ctrl+Z restores the deleted node and its edges (${await edgeCount()} edges)`);
  await page.locator('[data-testid="problem-count"]').waitFor({ state: 'detached' });
  await page.getByRole('button', { name: 'Publish' }).and(page.locator(':enabled')).waitFor();

  // Simulate a big deal: the path goes through the wait to the task.
  await page.getByRole('combobox', { name: 'Event type' }).waitFor();
  await page.getByLabel('Sample payload').fill(JSON.stringify({ amountMinor: 2500000, currency: 'EUR', customerCompany: 'Initech', dealId: 'd-1' }, null, 2));
  await page.getByRole('button', { name: 'Run simulation' }).click();
  const sim = page.getByRole('table', { name: 'Simulated steps' });
  await sim.waitFor();
  const onPath = await page.locator('[data-on-path="true"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-node-id')));
  t.check(JSON.stringify(onPath.sort()) === JSON.stringify(['condition_1', 'create_task_1', 'trigger', 'wait_1']),
    `the simulated path is marked: ${onPath.join(', ')}`);
  const simText = await sim.innerText();
  t.check(simText.includes('Plan the kick-off with Initech') && simText.includes('waits 1d'), 'the steps show the rendered task title and the wait');
  await t.shot(page, 'playbook-editor-simulated');

  // Publish and enable.
  await page.getByRole('button', { name: 'Publish' }).click();
  await page.getByText('Published as v1').waitFor();
  await page.getByRole('button', { name: 'Enable' }).click();
  await page.getByText(/is enabled$/).waitFor();
  const playbooks = (await t.call(ownerToken, 'GET', '/api/playbooks?limit=100')).data;
  const pb = playbooks.find((p) => p.name === name);
  t.check(pb?.status === 'enabled' && pb.publishedVersion === 1 && pb.graph.nodes.length === 5, `the API has ${name}: ${pb?.status} v${pb?.publishedVersion}`);

  // A deal won through the API (a small one: the false branch).
  const partner = await t.call(ownerToken, 'POST', '/api/partners', { name: unique('Editor Partner'), type: 'reseller' });
  const domain = `${unique('editor').replace(/\s+/g, '-').toLowerCase()}.example`;
  const deal = await t.call(ownerToken, 'POST', '/api/deals', { partnerId: partner.id, customerCompany: unique('Globex'), customerDomain: domain, amountMinor: 50000, currency: 'EUR' });
  await t.call(ownerToken, 'POST', `/api/deals/${deal.id}/approve`, {});
  const pipeline = (await t.call(ownerToken, 'GET', '/api/pipelines?limit=100')).data.find((p) => p.id === deal.pipelineId);
  const won = pipeline.stages.find((s) => s.outcome === 'won');
  await t.call(ownerToken, 'POST', `/api/deals/${deal.id}/move`, { stageId: won.id });
  const runs = await until(async () => (await t.call(ownerToken, 'GET', `/api/playbook-runs?playbookId=${pb.id}`)).data,
    (rs) => rs.length > 0 && rs[0].status === 'completed');
  t.check(runs.length === 1 && runs[0].status === 'completed', `the won deal started a run: ${runs[0]?.status}`);

  // The runs view: the run's page draws its version's graph with the path it took.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Playbook runs' }).click();
  await page.getByRole('heading', { level: 1, name: 'Playbook runs' }).waitFor();
  await page.locator(`a[href="/playbook-runs/${runs[0].id}"]`).click();
  await page.getByRole('heading', { level: 1, name: `Run of ${name}` }).waitFor();
  await page.getByRole('figure', { name: /The path of this run/ }).waitFor();
  await page.locator('[data-on-path="true"]').first().waitFor();
  const runPath = await page.locator('[data-on-path="true"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-node-id')));
  t.check(JSON.stringify(runPath.sort()) === JSON.stringify(['condition_1', 'emit_event_1', 'trigger']), `the run's path is drawn: ${runPath.join(', ')}`);
  t.check(await page.locator('.react-flow__edge.pb-edge-path').count() === 2, 'the two edges it followed are marked');
  await t.shot(page, 'playbook-run-path');
  await t.axe(page, 'playbook run with its path');

  // The version history compares the draft with v1.
  await page.locator(`a[href="/playbooks/${pb.id}"]`).first().click();
  await page.getByRole('heading', { level: 1, name }).waitFor();
  await page.getByRole('tab', { name: 'Compare versions' }).click();
  await page.getByRole('figure', { name: /Changes from/ }).waitFor();
  t.check(true, 'the version history draws the comparison');
  await t.shot(page, 'playbook-versions-compare');
  await context.close();
}
