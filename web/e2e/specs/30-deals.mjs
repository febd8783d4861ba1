// A deal from a partner's registration to won, as an operator works it in the console: found on
// the board, approved on its page, dragged with the mouse, moved with the keyboard, refused a
// stale move, won; and a registration for the same customer domain shows why it conflicts.
import { unique } from '../lib.mjs';

export const title = 'deals: board, approve, drag, keyboard move, refused move, win, conflict reasons';

/** A partner with a partner_admin user who has accepted the invitation; its token. */
async function partnerWithUser(t, ownerToken, name) {
  const partner = await t.call(ownerToken, 'POST', '/api/partners', { name: unique(name), type: 'reseller' });
  const email = `${unique('deals').replace(/\s+/g, '-').toLowerCase()}@partner.test`;
  const password = 'deal-pass-' + Math.random().toString(36).slice(2);
  const user = await t.call(ownerToken, 'POST', `/api/partners/${partner.id}/users`, { email, name: 'Dana Deals', roles: ['partner_admin'] });
  await t.call(null, 'POST', '/api/auth/accept-invitation', { token: user.invitation.token, password });
  return { partner, token: await t.token({ email, password }) };
}

/** Polls until the value fn returns satisfies ok, or gives the last one after ten seconds. */
async function until(fn, ok) {
  let v;
  for (let i = 0; i < 50; i++) {
    v = await fn();
    if (ok(v)) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
  return v;
}

export default async function (t) {
  const ownerToken = await t.token(t.owner);
  const a = await partnerWithUser(t, ownerToken, 'Deal Partner A');
  const b = await partnerWithUser(t, ownerToken, 'Deal Partner B');
  const domain = `${unique('initech').replace(/\s+/g, '-').toLowerCase()}.example`;
  const company = unique('Initech');
  const deal = await t.call(a.token, 'POST', '/api/deals', {
    customerCompany: company, customerDomain: domain, contactName: 'Bill Lumbergh', contactEmail: `bill@${domain}`,
    amountMinor: 1234550, currency: 'EUR', notes: 'Budget approved for Q3.',
  });
  t.check(deal.status === 'submitted' && deal.conflictStatus === 'none', `a partner registers ${company}: ${deal.status}, conflicts ${deal.conflictStatus}`);
  const rival = await t.call(b.token, 'POST', '/api/deals', { customerCompany: unique('Initech rival'), customerDomain: domain, amountMinor: 500000, currency: 'EUR' });
  t.check(rival.conflictStatus === 'review', `another partner's registration for ${domain} waits for conflict review (${rival.conflictStatus})`);

  const pipelines = (await t.call(ownerToken, 'GET', '/api/pipelines?limit=100')).data;
  const pipeline = pipelines.find((p) => p.id === deal.pipelineId);
  const stages = [...pipeline.stages].sort((x, y) => x.position - y.position);
  const open = stages.filter((s) => s.outcome === 'open');
  const won = stages.find((s) => s.outcome === 'won');
  const getDeal = () => t.call(ownerToken, 'GET', `/api/deals/${deal.id}`);

  const { page, context } = await t.newPage({ label: 'deals' });
  await t.signIn(page, t.owner);
  const column = (name) => page.getByRole('region', { name, exact: true });
  const card = () => page.locator(`[data-deal="${deal.id}"]`);

  // The board: the default pipeline's stages as columns, in order, the registration in the first.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Deals' }).click();
  await page.getByRole('heading', { level: 1, name: 'Deals' }).waitFor();
  await column(open[0].name).locator(`[data-deal="${deal.id}"]`).waitFor();
  if (pipelines.length > 1) await page.getByLabel('Pipeline').waitFor();
  const shown = await page.locator('section[data-stage]').evaluateAll((els) => els.map((e) => e.getAttribute('data-stage')));
  t.check(JSON.stringify(shown) === JSON.stringify(stages.map((s) => s.name)), `the board's columns are the pipeline's stages in order: ${shown.join(' → ')}`);
  const cardText = await card().innerText();
  t.check(cardText.includes('12,345.50') && /submitted/i.test(cardText) && cardText.includes(a.partner.name),
    `the card shows the amount, the status and the partner: ${cardText.replace(/\s+/g, ' ')}`);
  t.check(await card().getByLabel(/^Drag /).count() === 0, 'a submitted registration cannot be dragged before it is approved');
  await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'), null, { timeout: 10_000 }).catch(() => undefined);
  await page.mouse.move(1200, 780); // not over the menu link just clicked
  await t.shot(page, 'deals-board');
  await t.axe(page, 'deals board');

  // Its page: approve it.
  await card().getByRole('link', { name: company }).click();
  await page.getByRole('heading', { level: 1, name: company }).waitFor();
  t.check(await page.getByText('Budget approved for Q3.').isVisible(), "the deal's page shows the partner's notes");
  await page.getByRole('button', { name: 'Approve' }).click();
  const approveDialog = page.getByRole('dialog', { name: 'Approve the registration' });
  await approveDialog.getByRole('button', { name: 'Approve' }).click();
  await approveDialog.waitFor({ state: 'hidden' });
  let now = await until(getDeal, (d) => d.status === 'approved');
  t.check(now.status === 'approved' && !!now.protectedUntil, `approved in the UI: the API says ${now.status}, protected until ${now.protectedUntil}`);
  await page.getByText('Protected until', { exact: true }).locator('..').getByRole('time').waitFor();
  await page.getByRole('row').filter({ hasText: 'Approved' }).first().waitFor();
  t.check(true, 'the page shows the protection and the timeline has the approval');
  await t.shot(page, 'deals-detail-approved');
  await t.axe(page, 'deal page');

  // Back on the board, drag the card with the mouse to the next stage.
  await page.getByRole('link', { name: '← Deals' }).click();
  const handle = card().getByLabel(/^Drag /);
  await handle.waitFor();
  await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'), null, { timeout: 10_000 });
  await handle.scrollIntoViewIfNeeded();
  const from = await handle.boundingBox();
  const to = await column(open[1].name).boundingBox();
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await page.mouse.down();
  await page.mouse.move(from.x + from.width / 2 + 12, from.y + from.height / 2, { steps: 3 });
  await page.waitForTimeout(100);
  await page.mouse.move(to.x + to.width / 2, from.y + from.height / 2, { steps: 12 });
  await page.waitForTimeout(100);
  await page.mouse.up();
  await column(open[1].name).locator(`[data-deal="${deal.id}"]`).waitFor();
  now = await until(getDeal, (d) => d.stageId === open[1].id);
  t.check(now.stageId === open[1].id, `dragged with the mouse to ${open[1].name}: the API has it there`);
  t.check(await column(open[0].name).locator(`[data-deal="${deal.id}"]`).count() === 0, `and it left ${open[0].name}`);

  // With the keyboard: focus the handle, space, right arrow, space.
  await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'), null, { timeout: 10_000 });
  await card().getByLabel(/^Drag /).focus();
  const announced = (text) => page.waitForFunction((x) => [...document.querySelectorAll('[id^="DndLiveRegion"]')].some((e) => e.textContent?.includes(x)), text);
  await page.keyboard.press('Space');
  await announced(`is over ${open[1].name}`);
  await page.keyboard.press('ArrowRight');
  await announced(`is over ${open[2].name}`);
  await page.keyboard.press('Space');
  await column(open[2].name).locator(`[data-deal="${deal.id}"]`).waitFor();
  now = await until(getDeal, (d) => d.stageId === open[2].id);
  t.check(now.stageId === open[2].id, `moved with the keyboard to ${open[2].name}: the API has it there`);

  // A move the API refuses: someone moved the deal meanwhile; the board says so and catches up.
  await t.call(ownerToken, 'POST', `/api/deals/${deal.id}/move`, { stageId: open[3].id });
  await card().getByRole('button', { name: /^Move .* to…$/ }).click();
  await page.getByRole('menuitem', { name: open[3].name, exact: true }).click();
  const refusal = page.getByText(/was not moved to/);
  await refusal.waitFor();
  const refusalText = (await refusal.locator('..').innerText()).replace(/\s+/g, ' ');
  t.check(/already/i.test(refusalText), `a refused move is shown with the API's reason: ${refusalText}`);
  await column(open[3].name).locator(`[data-deal="${deal.id}"]`).waitFor();
  t.check(await column(open[2].name).locator(`[data-deal="${deal.id}"]`).count() === 0, `after the refusal the card shows where the deal is: ${open[3].name}`);
  await t.shot(page, 'deals-board-moved');

  // Win it on its page.
  await card().getByRole('link', { name: company }).click();
  await page.getByRole('heading', { level: 1, name: company }).waitFor();
  await page.getByRole('button', { name: 'Mark won' }).click();
  const winDialog = page.getByRole('dialog', { name: 'Mark the deal won' });
  await winDialog.getByRole('button', { name: 'Mark won' }).click();
  await winDialog.waitFor({ state: 'hidden' });
  now = await until(getDeal, (d) => d.status === 'won');
  t.check(now.status === 'won' && now.stageId === won.id && !!now.customerId, `won in the UI: the API says ${now.status} in ${won.name}, customer ${now.customerId}`);
  await page.getByRole('row').filter({ hasText: 'Won' }).first().waitFor();
  t.check(await page.getByRole('button', { name: 'Mark won' }).count() === 0, 'a won deal offers no more moves');
  await page.getByRole('link', { name: '← Deals' }).click();
  await column(won.name).locator(`[data-deal="${deal.id}"]`).waitFor();
  t.check(true, `the board shows it under ${won.name}`);

  // The rival registration: its conflict and why.
  await page.goto(`${t.base}/deals?view=review`);
  const row = page.getByRole('row').filter({ hasText: rival.customerCompany });
  await row.waitFor();
  t.check(await row.getByText('Conflict').count() > 0, 'the review list marks the conflicting registration');
  await row.getByRole('link', { name: rival.customerCompany, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: rival.customerCompany }).waitFor();
  const conflicts = page.getByRole('table', { name: 'Conflicts' });
  const reason = conflicts.getByRole('row').filter({ hasText: 'Same customer domain' });
  await reason.waitFor();
  const reasonText = (await reason.innerText()).replace(/\s+/g, ' ');
  t.check(reasonText.includes(a.partner.name) && reasonText.includes(domain), `the conflict says why: ${reasonText}`);
  t.check(await page.getByRole('button', { name: 'Approve' }).isDisabled(), 'a registration under conflict review cannot be approved yet');
  await t.shot(page, 'deals-detail-conflict');
  await t.axe(page, 'deal page with conflicts');
  await context.close();
}
