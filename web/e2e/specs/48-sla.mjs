// Service-desk SLAs. The operator sets the urgent priority's targets (a first response longer than
// the resolution is refused beside its field) and the business hours (a time zone from the
// searchable list, weekly windows; an overlapping window is refused and shown on its row); the API
// holds what the page saved. A ticket of that priority shows its SLA card with the due times the
// API reports, the queue shows its SLA state and filters paused and breached tickets. The policy is
// removed through the page and the hours set back to around the clock, so later specs see none.
import { unique } from '../lib.mjs';

export const title = 'service desk SLAs: policies, business hours, the SLA card, the queue filter';

const priority = 'urgent';

async function until(what, fn, ms = 30_000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

export default async function (t) {
  const ownerToken = await t.token(t.owner);
  const partner = await t.call(ownerToken, 'POST', '/api/partners', { name: unique('SLA Partner'), type: 'reseller' });
  const op = await t.newPage({ label: 'sla console' });
  const page = op.page;
  let ticketId = '';
  try {
    await t.signIn(page, t.owner);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'SLA policies' }).click();
    await page.getByRole('heading', { level: 1, name: 'SLA policies' }).waitFor();
    const table = page.getByRole('table', { name: 'SLA policies' });
    await table.locator(`tr[data-priority=${priority}]`).waitFor();
    await t.axe(page, '[console] SLA policies');

    // A first response target longer than the resolution target is refused beside its field.
    await page.getByRole('button', { name: `Set ${priority} policy` }).click();
    let dialog = page.getByRole('dialog', { name: `SLA policy: ${priority} priority` });
    await dialog.getByLabel('First response target').fill('500');
    await dialog.getByLabel('Resolution target').fill('240');
    await dialog.getByRole('button', { name: 'Save policy' }).click();
    await dialog.getByText('at most resolutionMinutes').waitFor();
    const fieldError = await dialog.getByLabel('First response target').getAttribute('aria-invalid');
    t.check(fieldError === 'true', `a first response longer than the resolution is refused beside its field (aria-invalid=${fieldError})`);
    await t.axe(page, '[console] SLA policy form with a refused target');

    // Valid targets with a fixed warning lead.
    await dialog.getByLabel('First response target').fill('30');
    await dialog.getByLabel('A fixed time before it').check();
    await dialog.getByLabel('Warning lead').fill('10');
    await dialog.getByRole('button', { name: 'Save policy' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await table.locator(`tr[data-priority=${priority}]`).getByText('10 min before each target').waitFor();
    const policy = await t.call(ownerToken, 'GET', `/api/ticket-sla-policies/${priority}`);
    t.check(policy.firstResponseMinutes === 30 && policy.resolutionMinutes === 240 && policy.warnBeforeMinutes === 10 && !policy.warnPercent,
      `the ${priority} policy is stored as set (${policy.firstResponseMinutes}/${policy.resolutionMinutes}, warn ${policy.warnBeforeMinutes} before, ${policy.warnPercent ?? 0}%)`);
    t.check(await table.locator(`tr[data-priority=${priority}]`).getByText('4 h').isVisible(), 'the policy table shows the resolution target as 4 h');

    // Business hours: a time zone from the searchable list and weekly windows; an overlap is refused.
    const zone = page.getByLabel(/^Time zone/).and(page.locator('input:not([type=hidden])')).first();
    await zone.click();
    await zone.fill('Europe/Ber');
    await page.getByRole('option', { name: 'Europe/Berlin', exact: true }).click();
    await page.getByLabel('Weekly windows').check();
    await page.getByRole('button', { name: 'Add window' }).click();
    await page.getByRole('button', { name: 'Add window' }).click();
    await page.getByLabel('Window 2 day').selectOption('mon');
    await page.getByLabel('Window 2 from').fill('12:00');
    await page.getByLabel('Window 2 to').fill('18:00');
    await page.getByRole('button', { name: 'Save business hours' }).click();
    const refusal = page.getByRole('alert').filter({ hasText: /overlap/i }).first();
    await refusal.waitFor();
    const rowMessage = await page.getByRole('listitem', { name: /^Window \d$/ }).getByText(/Window \d: overlaps window \d/).first().textContent();
    t.check(!!rowMessage, `the overlapping window is refused on its row ("${rowMessage}")`);
    let hours = await t.call(ownerToken, 'GET', '/api/ticket-business-hours');
    t.check(hours.windows.length === 0 || !hours.windows.some((w) => w.start === '12:00'), 'the refused hours were not stored');
    await t.axe(page, '[console] business hours with an overlapping window');

    await page.getByLabel('Window 2 day').selectOption('tue');
    await page.getByLabel('Window 2 from').fill('08:00');
    await page.getByLabel('Window 2 to').fill('24:00');
    await page.getByRole('button', { name: 'Save business hours' }).click();
    await page.getByText('Business hours saved').first().waitFor();
    hours = await t.call(ownerToken, 'GET', '/api/ticket-business-hours');
    const want = [{ day: 'mon', start: '09:00', end: '17:00' }, { day: 'tue', start: '08:00', end: '24:00' }];
    t.check(hours.timeZone === 'Europe/Berlin' && JSON.stringify(hours.windows) === JSON.stringify(want),
      `the business hours are stored as set (${hours.timeZone} ${JSON.stringify(hours.windows)})`);

    // A ticket of that priority: its SLA card shows the due times the clock recorded.
    const subject = unique('SLA urgent');
    const opened = await t.call(ownerToken, 'POST', '/api/tickets', { partnerId: partner.id, subject, body: 'Checkout is down for all our customers.', priority });
    ticketId = opened.id;
    const ticket = await until('the SLA clock to record due times', async () => {
      const x = await t.call(ownerToken, 'GET', `/api/tickets/${ticketId}`);
      return x.sla?.firstResponseDueAt && x.sla?.resolutionDueAt ? x : null;
    });
    await page.goto(`${t.base}/tickets/${ticketId}`);
    await page.getByRole('heading', { level: 1, name: subject }).waitFor();
    const card = page.getByRole('region', { name: 'SLA', exact: true });
    await card.waitFor();
    const firstShown = await card.locator(`time[datetime="${ticket.sla.firstResponseDueAt}"]`).count();
    const resolutionShown = await card.locator(`time[datetime="${ticket.sla.resolutionDueAt}"]`).count();
    t.check(firstShown > 0 && resolutionShown > 0,
      `the SLA card shows the API's due times (first response ${ticket.sla.firstResponseDueAt}: ${firstShown}, resolution ${ticket.sla.resolutionDueAt}: ${resolutionShown})`);
    const dueText = await card.locator(`time[datetime="${ticket.sla.firstResponseDueAt}"]`).first().textContent();
    const local = await page.evaluate((iso) => new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso)), ticket.sla.firstResponseDueAt);
    t.check(dueText === local, `the due time reads in the viewer's zone ("${dueText}" = "${local}")`);
    await t.axe(page, '[console] ticket with its SLA card');

    // The queue shows the SLA state; waiting on the partner pauses the clock and the filter finds it.
    await page.goto(`${t.base}/tickets?q=${encodeURIComponent(subject)}`);
    const row = page.getByRole('table', { name: 'Tickets' }).getByRole('row').filter({ hasText: subject });
    await row.locator(`time[datetime="${ticket.sla.firstResponseDueAt}"]`).waitFor();
    t.check(true, 'the queue shows when the ticket is next due');
    await page.goto(`${t.base}/tickets/${ticketId}`);
    await page.getByRole('button', { name: 'Wait on partner' }).click();
    const paused = await until('the SLA clock to pause', async () => {
      const x = await t.call(ownerToken, 'GET', `/api/tickets/${ticketId}`);
      return x.sla?.pausedAt ? x : null;
    });
    await page.goto(`${t.base}/tickets?q=${encodeURIComponent(subject)}`);
    await page.getByLabel('SLA', { exact: true }).selectOption('paused');
    await page.waitForURL(/sla=paused/);
    await row.locator('[data-sla=paused]').waitFor();
    const listed = await t.call(ownerToken, 'GET', `/api/tickets?sla=paused&q=${encodeURIComponent(subject)}`);
    t.check(listed.data.length === 1 && listed.data[0].id === ticketId, `the paused filter lists the ticket (page and API: ${listed.data.length})`);
    await t.axe(page, '[console] tickets filtered by SLA paused');
    await page.getByLabel('SLA', { exact: true }).selectOption('breached');
    await page.getByText('No tickets match these filters.').waitFor();
    t.check(true, 'the breached filter does not list a ticket whose targets are not due yet');
    await page.goto(`${t.base}/tickets/${ticketId}`);
    await card.getByText('Paused since').waitFor();
    t.check(await card.locator(`time[datetime="${paused.sla.pausedAt}"]`).count() > 0, `the SLA card shows since when the clock is paused (${paused.sla.pausedAt})`);

    // The policy is removed through the page.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'SLA policies' }).click();
    await page.getByRole('button', { name: `Remove ${priority} policy` }).click();
    await page.getByRole('dialog', { name: `Remove the ${priority} policy?` }).getByRole('button', { name: 'Remove policy' }).click();
    await page.getByRole('button', { name: `Set ${priority} policy` }).waitFor();
    const left = await t.call(ownerToken, 'GET', '/api/ticket-sla-policies?limit=10');
    t.check(!left.data.some((p) => p.priority === priority), 'the policy is removed');
  } finally {
    // Later specs run with no SLA policy and around-the-clock hours, whatever happened above.
    await t.call(ownerToken, 'DELETE', `/api/ticket-sla-policies/${priority}`).catch(() => undefined);
    await t.call(ownerToken, 'PUT', '/api/ticket-business-hours', { timeZone: 'UTC', windows: [] }).catch(() => undefined);
    if (ticketId) await t.call(ownerToken, 'POST', `/api/tickets/${ticketId}/status`, { status: 'closed' }).catch(() => undefined);
    await op.context.close();
  }
}
