// The partner portal's activity and metrics: events of two partners' customers come in through
// the API with a machine key; a partner user of one partner sees its own customers' events
// newest first and none of the other partner's, filters them by type, opens one (type, customer,
// time and payload, nothing an operator alone reads), finds a customer's latest events on its
// page with a way to all of them, and reads each metric computed over its own customers only,
// equal to what the API computes for it.
import { unique } from '../lib.mjs';

export const title = 'partner portal: activity of its own customers, an event, a customer\'s latest events, metrics';

const word = () => Math.random().toString(36).slice(2, 8);

export default async function (t) {
  const ownerToken = await t.token(t.owner);
  const w = word();
  const trialType = `e2e.trial_started_${w}`;
  const paidType = `e2e.invoice_paid_${w}`;
  const alpha = await t.call(ownerToken, 'POST', '/api/partners', { name: unique('Activity Alpha'), type: 'reseller' });
  const bravo = await t.call(ownerToken, 'POST', '/api/partners', { name: unique('Activity Bravo'), type: 'reseller' });
  const ada = await t.call(ownerToken, 'POST', '/api/customers', { name: `Ada ${w}`, email: `ada-${w}@alpha-customer.test`, partnerId: alpha.id });
  const bob = await t.call(ownerToken, 'POST', '/api/customers', { name: `Bob ${w}`, email: `bob-${w}@alpha-customer.test`, partnerId: alpha.id });
  const eve = await t.call(ownerToken, 'POST', '/api/customers', { name: `Eve ${w}`, email: `eve-${w}@bravo-customer.test`, partnerId: bravo.id });

  // An integration sends what the customers did, with a machine key.
  const key = (await t.call(ownerToken, 'POST', '/api/apikeys', { name: unique('e2e activity'), scopes: ['events:write'] })).key;
  for (const [customer, type, payload] of [
    [eve, trialType, { plan: 'enterprise', note: `bravo-only-${w}` }],
    [ada, trialType, { plan: 'team', seats: 12 }],
    [ada, paidType, { invoice: `inv-ada-${w}`, amount: 1500, currency: 'EUR' }],
    [eve, paidType, { invoice: `inv-eve-${w}`, amount: 990000, currency: 'EUR' }],
    [bob, paidType, { invoice: `inv-bob-${w}`, amount: 2500, currency: 'EUR' }],
  ]) {
    await t.call(key, 'POST', '/api/events/ingest', { type, customerId: customer.id, payload });
  }
  // The program's metrics over those events: paid invoices counted, and their amounts added up.
  const countName = unique('Paid invoices');
  const sumName = unique('Invoiced');
  const count = await t.call(ownerToken, 'POST', '/api/metrics', { name: countName, kind: 'count', eventType: paidType });
  const sum = await t.call(ownerToken, 'POST', '/api/metrics', { name: sumName, kind: 'sum', eventType: paidType, field: 'amount', unit: 'money', currency: 'EUR' });

  // A partner user of Alpha.
  const email = `${unique('activity').replace(/\s+/g, '-').toLowerCase()}@partner.test`;
  const password = 'portal-pass-' + Math.random().toString(36).slice(2);
  const user = await t.call(ownerToken, 'POST', `/api/partners/${alpha.id}/users`, { email, name: 'Alma Alpha', roles: ['partner_user'] });
  const partnerToken = (await t.call(null, 'POST', '/api/auth/accept-invitation', { token: user.invitation.token, password })).accessToken;
  const seen = (await t.call(partnerToken, 'GET', '/api/events?order=newest&limit=100')).data;
  t.check(seen.length > 0 && seen.every((e) => e.partnerId === alpha.id) && !seen.some((e) => e.customerId === eve.id),
    `the API lists the partner only its own customers' events (${seen.length})`);

  const { page } = await t.newPage({ label: 'portal activity' });
  await t.signIn(page, { email, password });
  const nav = page.getByRole('navigation', { name: 'Main' });

  // Activity: Alpha's customers' events, newest first; none of Bravo's.
  await nav.getByRole('link', { name: 'Activity' }).click();
  await page.getByRole('heading', { level: 1, name: 'Activity' }).waitFor();
  const table = page.getByRole('table', { name: 'Activity' });
  await table.getByText(`inv-bob-${w}`).waitFor();
  // Customers are named as their records arrive.
  await table.getByRole('link', { name: `Bob ${w}` }).first().waitFor();
  await table.getByRole('link', { name: `Ada ${w}` }).first().waitFor();
  const rows = table.getByRole('row');
  const first = await rows.nth(1).innerText();
  t.check(first.includes(paidType) && first.includes(`inv-bob-${w}`) && first.includes(`Bob ${w}`),
    `the newest event comes first, with its customer by name: ${first.replace(/\s+/g, ' ')}`);
  const text = await table.innerText();
  t.check(text.includes(`inv-ada-${w}`) && text.includes(`Ada ${w}`) && text.includes(trialType),
    'the partner\'s other customer\'s events are listed');
  t.check(!text.includes(`inv-eve-${w}`) && !text.includes(`bravo-only-${w}`) && !text.includes(`Eve ${w}`),
    'none of the other partner\'s customers\' events are listed');
  await t.shot(page, 'portal-activity');
  await t.axe(page, '[portal] Activity');

  // Filtered by type: only the trial is left.
  const typeInput = page.getByLabel('Type', { exact: true }).and(page.locator('input'));
  await typeInput.fill(trialType);
  await page.keyboard.press('Escape');
  await table.getByText(`inv-bob-${w}`).waitFor({ state: 'detached' });
  const trialRows = rows.filter({ hasText: trialType });
  await trialRows.first().waitFor();
  t.check(await rows.count() === 2 && await trialRows.count() === 1 && new URL(page.url()).searchParams.get('type') === trialType,
    `filtering by type ${trialType} leaves Ada's trial alone (${await rows.count() - 1} row(s)), kept in the address`);

  // One event: type, customer, time and payload; no actor, partner, source or operator ids.
  await trialRows.first().getByRole('link', { name: trialType }).click();
  await page.getByRole('heading', { level: 1, name: `Event ${trialType}` }).waitFor();
  const payload = page.getByLabel('Payload', { exact: true });
  await payload.waitFor();
  const json = JSON.parse(await payload.innerText());
  t.check(json.plan === 'team' && json.seats === 12, `the event's payload is shown as JSON: ${JSON.stringify(json)}`);
  const main = await page.locator('main').innerText();
  t.check(main.includes(`Ada ${w}`) && /Occurred/i.test(main), 'the event shows its customer by name and when it occurred');
  t.check(!/\b(Actor|Source|Received|Caused by|Partner)\b/i.test(main.replace(/Payload[\s\S]*$/, '')),
    'the event shows nothing only operators read (actor, source, partner, causation)');
  await t.shot(page, 'portal-activity-event');
  await t.axe(page, '[portal] an event');

  // The customer's page: its latest events, and a way to all of them.
  await page.getByRole('link', { name: `Ada ${w}` }).first().click();
  await page.getByRole('heading', { level: 1, name: `Ada ${w}` }).waitFor();
  const latest = page.getByRole('table', { name: 'Latest activity' });
  await latest.getByText(`inv-ada-${w}`).waitFor();
  const latestText = await latest.innerText();
  const firstLatest = await latest.getByRole('row').nth(1).innerText();
  t.check(latestText.includes(trialType) && firstLatest.includes(paidType) && !latestText.includes(`inv-bob-${w}`),
    `the customer's page lists its latest events, newest first, and only its own: ${firstLatest.replace(/\s+/g, ' ')}`);
  await t.axe(page, '[portal] a customer with its latest activity');
  await page.getByRole('link', { name: 'All activity of this customer' }).click();
  await page.getByRole('heading', { level: 1, name: 'Activity' }).waitFor();
  await table.getByText(`inv-ada-${w}`).waitFor();
  const filtered = await table.innerText();
  t.check(new URL(page.url()).searchParams.get('customerId') === ada.id && !filtered.includes(`inv-bob-${w}`),
    'the link opens the activity of that customer alone');
  t.check((await page.getByLabel('Customer', { exact: true }).and(page.locator('input')).inputValue()).includes(`Ada ${w}`), 'the customer filter names the customer');

  // Metrics: each computed over Alpha's customers' events, as the API computes it for the partner.
  await nav.getByRole('link', { name: 'Metrics' }).click();
  await page.getByRole('heading', { level: 1, name: 'Metrics' }).waitFor();
  const metrics = page.getByRole('table', { name: 'Metrics' });
  const countValue = (await t.call(partnerToken, 'GET', `/api/metrics/${count.id}/compute`)).value;
  const sumValue = (await t.call(partnerToken, 'GET', `/api/metrics/${sum.id}/compute`)).value;
  const everyone = (await t.call(ownerToken, 'GET', `/api/metrics/${count.id}/compute`)).value;
  t.check(countValue === 2 && sumValue === 4000 && everyone >= 3,
    `the API computes 2 paid invoices (4000 EUR minor) for the partner, ${everyone} for the program`);
  const countCell = metrics.getByTestId(`metric-value-${count.id}`);
  const sumCell = metrics.getByTestId(`metric-value-${sum.id}`);
  await countCell.waitFor();
  await sumCell.waitFor();
  const countShown = (await countCell.innerText()).trim();
  const sumShown = (await sumCell.innerText()).trim();
  t.check(countShown === String(countValue), `the portal shows the count the API computes for the partner: ${countShown}`);
  t.check(/40[.,]00/.test(sumShown) && /€|EUR/.test(sumShown) && !/9[.,]?9\d\d/.test(sumShown),
    `the portal shows the sum as money in EUR, the partner's alone: ${sumShown}`);
  await t.shot(page, 'portal-metrics');
  await t.axe(page, '[portal] Metrics');

  // One metric: its value for the period and a chart of it, a point a day.
  await metrics.getByRole('link', { name: countName }).click();
  await page.getByRole('heading', { level: 1, name: countName }).waitFor();
  const total = page.getByTestId('metric-total');
  await total.waitFor();
  t.check((await total.innerText()).trim() === String(countValue), `the metric's page shows the partner's count: ${(await total.innerText()).trim()}`);
  const series = (await t.call(partnerToken, 'GET', `/api/metrics/${count.id}/compute?interval=day&from=${encodeURIComponent(new Date(Date.now() - 30 * 86_400_000).toISOString())}`)).series ?? [];
  const chart = page.getByRole('img', { name: `${countName}, a point a day` });
  await chart.locator('canvas').first().waitFor();
  t.check(series.reduce((n, p) => n + (p.value ?? 0), 0) === countValue,
    `the chart draws the partner's series, whose points add up to the value (${series.length} days)`);
  await t.axe(page, '[portal] a metric with its chart');
  await page.getByLabel('Period').selectOption('365');
  await page.getByRole('img', { name: `${countName}, a point a week` }).locator('canvas').first().waitFor();
  t.check(new URL(page.url()).searchParams.get('days') === '365', 'a year is drawn a point a week, and the period is kept in the address');
  await page.context().close();
}
