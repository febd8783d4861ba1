// The console's data and integration pages as an operator uses them: a webhook endpoint whose
// signing secret is shown once, a test delivery in its log and replayed; a machine key minted,
// used and revoked; an ingested event found in the explorer and opened; a customer created,
// edited and deleted; metrics defined and computed, a sum shown as money.
import { unique } from '../lib.mjs';

/** A lower-case word for event types and emails. */
const word = () => Math.random().toString(36).replace(/[^a-z]/g, '').slice(0, 6) + Date.now().toString(36);

async function webhookSecretAndDeliveries(t, page, ownerToken) {
  await page.goto(t.base + '/webhooks');
  await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
  await page.getByRole('button', { name: 'Add endpoint' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add a webhook endpoint' });
  const url = `https://example.com/hooks/${word()}`;
  await dialog.getByLabel(/^Endpoint URL/).fill(url);
  const types = dialog.getByLabel(/^Event types/);
  await types.fill('partner.*');
  await types.press('Enter');
  await dialog.getByLabel(/^Description/).fill('E2E endpoint');
  await dialog.getByRole('button', { name: 'Add endpoint' }).click();

  const secretBox = page.getByTestId('secret-once');
  await secretBox.waitFor();
  const secret = (await secretBox.innerText()).trim();
  t.check(/^whsec_\S{16,}$/.test(secret), `creating a webhook shows its signing secret once (${secret.slice(0, 10)}…)`);
  const once = page.getByRole('dialog', { name: "The endpoint's signing secret" });
  t.check(await once.getByRole('button', { name: 'Copy' }).isVisible(), 'the secret dialog has a copy button');
  await page.waitForTimeout(400); // the dialog's opening transition
  await t.shot(page, 'webhook-secret-once');
  await t.axe(page, 'webhook secret dialog');
  await once.getByRole('button', { name: 'I have stored it' }).click();
  await page.waitForURL(/\/webhooks\/[^/]+$/);
  const id = new URL(page.url()).pathname.split('/').pop();
  await page.reload();
  await page.getByTestId('webhook-url').waitFor();
  t.check((await page.getByTestId('webhook-url').innerText()) === url, 'the detail page shows the endpoint URL');
  const text = await page.evaluate(() => document.body.innerText);
  const html = await page.content();
  t.check(!text.includes(secret) && !html.includes(secret), 'after closing and reloading, the secret is nowhere in the page');
  const hint = secret.slice(-4);
  t.check(text.includes(hint), `the page shows only the secret's last characters (…${hint})`);
  const fromApi = await t.call(ownerToken, 'GET', `/api/webhooks/${id}`);
  t.check(!JSON.stringify(fromApi).includes(secret) && !('secret' in fromApi), 'GET /api/webhooks/{id} does not return the secret');

  // A test delivery: the endpoint is outside the allowed networks or unreachable here; the log
  // shows the attempt with whatever outcome it had.
  await page.getByRole('button', { name: 'Send test' }).click();
  const log = page.getByRole('table', { name: 'Deliveries' });
  const row = log.getByRole('row').filter({ hasText: 'webhook.tested' }).first();
  await row.waitFor({ timeout: 60_000 });
  const deliveries = await t.call(ownerToken, 'GET', `/api/webhooks/${id}/deliveries`);
  const d = deliveries.data.find((x) => x.test);
  t.check(!!d && d.attemptCount >= 1, `the test delivery is recorded with ${d?.attemptCount} attempt(s), status ${d?.status}`);
  const rowText = await row.innerText();
  t.check(!!d && rowText.toLowerCase().includes(d.status), `the deliveries log shows the test delivery ${d?.status}: ${rowText.replace(/\s+/g, ' ')}`);
  await t.shot(page, 'webhook-detail');
  await t.axe(page, 'webhook detail with deliveries');

  await row.getByRole('button', { name: /^Details/ }).click();
  const detail = page.getByRole('dialog', { name: 'Delivery' });
  const attempts = detail.getByRole('table', { name: 'Attempts' });
  await attempts.waitFor();
  const attemptRows = await attempts.getByRole('row').count();
  t.check(attemptRows >= 2, `the delivery's detail lists its attempt(s) with response and timing (${attemptRows - 1})`);
  await t.shot(page, 'webhook-delivery');
  await detail.getByRole('button', { name: 'Replay' }).click();
  await page.getByText('Delivery sent again').waitFor();
  const after = await t.call(ownerToken, 'GET', `/api/webhooks/${id}/deliveries/${d.id}`);
  t.check(after.replays === 1, `replaying from the detail raises the delivery's replays to ${after.replays}`);
  await detail.getByRole('button', { name: 'Close' }).last().click();
}

async function machineKey(t, page) {
  await page.goto(t.base + '/api-keys');
  await page.getByRole('heading', { level: 1, name: 'Machine keys' }).waitFor();
  await page.getByRole('button', { name: 'Mint key' }).click();
  const dialog = page.getByRole('dialog', { name: 'Mint a machine key' });
  const name = unique('e2e key');
  await dialog.getByLabel(/^Name/).fill(name);
  await dialog.getByLabel(/^Permissions/).click();
  await page.getByRole('option', { name: 'profile:read', exact: true }).click();
  await dialog.getByLabel(/^Name/).click();
  await dialog.getByRole('button', { name: 'Mint key' }).click();
  const secretBox = page.getByTestId('secret-once');
  await secretBox.waitFor();
  const key = (await secretBox.innerText()).trim();
  const me = await t.call(key, 'GET', '/api/me');
  t.check(me.kind !== undefined && me.permissions.includes('profile:read'), `the minted key works as a Bearer token (GET /api/me as ${me.kind})`);
  await page.getByRole('dialog', { name: 'Your new machine key' }).getByRole('button', { name: 'I have stored it' }).click();

  const table = page.getByRole('table', { name: 'Machine keys' });
  const row = table.getByRole('row').filter({ hasText: name });
  await row.waitFor();
  t.check(!(await page.content()).includes(key), 'after closing the dialog the key is nowhere in the page');
  await t.shot(page, 'api-keys');
  await row.getByRole('button', { name: `Revoke ${name}` }).click();
  const confirm = page.getByRole('dialog', { name: `Revoke ${name}?` });
  await confirm.getByRole('button', { name: 'Revoke key' }).click();
  await row.getByText('revoked').waitFor();
  let status = 0;
  try {
    await t.call(key, 'GET', '/api/me');
  } catch (err) {
    status = Number(/: (\d{3}) /.exec(String(err))?.[1] ?? -1);
  }
  t.check(status === 401, `after revoking in the page the key is refused (${status})`);
}

async function eventsExplorer(t, page, ownerToken) {
  // Events come in from a system holding a machine key.
  const ingestKey = (await t.call(ownerToken, 'POST', '/api/apikeys', { name: unique('e2e ingest'), scopes: ['events:write'] })).key;
  const type = `e2e.checked_${word()}`;
  const email = `${word()}@customer.test`;
  const ingested = await t.call(ingestKey, 'POST', '/api/events/ingest', {
    type, customerEmail: email, eventId: word(), payload: { plan: 'pro', seats: 7, note: '<b id="injected">bold</b>' },
  });
  await t.call(ingestKey, 'POST', '/api/events/ingest', { type: 'e2e.other_thing', customerEmail: email, payload: { x: 1 } });
  await page.goto(t.base + '/events');
  await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
  await page.getByRole('combobox', { name: 'Type' }).fill(type);
  await page.keyboard.press('Escape');
  const table = page.getByRole('table', { name: 'Events' });
  const link = table.getByRole('link', { name: type });
  await link.waitFor();
  await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
  const rows = await table.locator('tbody tr').count();
  t.check(rows === 1, `the type filter shows only the ingested event (${rows} row(s))`);
  t.check(new URL(page.url()).searchParams.get('type') === type, 'the filter is kept in the address');
  await link.click();
  await page.waitForURL(`**/events/${ingested.id}`);
  await page.getByRole('heading', { level: 1, name: `Event ${type}` }).waitFor();
  const payload = page.getByTestId('event-payload');
  const shown = await payload.innerText();
  t.check(shown.includes('"seats": 7') && shown.includes('"plan": "pro"'), 'the event page shows its payload as formatted JSON');
  t.check(shown.includes('<b id=\\"injected\\">bold</b>') && (await page.locator('#injected').count()) === 0, 'markup in a payload is shown as text, never rendered');
  await t.shot(page, 'event-detail');
  await t.axe(page, 'event detail');
  return { type, email, customerId: ingested.customerId, ingestKey };
}

async function customers(t, page, ownerToken, ingested) {
  // The customer the ingest created, found by email, lists its events.
  await page.goto(t.base + '/customers');
  await page.getByRole('heading', { level: 1, name: 'Customers' }).waitFor();
  await page.getByLabel('Email').fill(ingested.email);
  const table = page.getByRole('table', { name: 'Customers' });
  await table.getByRole('row').filter({ hasText: ingested.email }).getByRole('link').click();
  await page.waitForURL(`**/customers/${ingested.customerId}`);
  await page.getByRole('table', { name: 'Events' }).getByRole('link', { name: ingested.type }).waitFor();
  t.check(true, 'filtering customers by email finds the ingested customer, whose page lists its events');

  // A customer made by hand: created, renamed, deleted.
  await page.goto(t.base + '/customers');
  await page.getByRole('button', { name: 'New customer' }).click();
  const dialog = page.getByRole('dialog', { name: 'New customer' });
  const name = unique('E2E Customer');
  const email = `${word()}@customer.test`;
  await dialog.getByLabel('Name').fill(name);
  await dialog.getByLabel('Email').fill(email);
  await dialog.getByLabel(/^External id/).fill(word());
  await dialog.getByRole('button', { name: 'Create customer' }).click();
  await page.getByRole('heading', { level: 1, name }).waitFor();
  const id = new URL(page.url()).pathname.split('/').pop();
  t.check((await t.call(ownerToken, 'GET', `/api/customers/${id}`)).email === email, 'a customer created in the page is stored');
  await page.getByRole('button', { name: 'Edit' }).click();
  const edit = page.getByRole('dialog', { name: 'Edit customer' });
  await edit.getByLabel('Name').fill(name + ' Renamed');
  await edit.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('heading', { level: 1, name: name + ' Renamed' }).waitFor();
  t.check((await t.call(ownerToken, 'GET', `/api/customers/${id}`)).name === name + ' Renamed', 'editing renames the customer');
  await t.shot(page, 'customer-detail');
  await t.axe(page, 'customer detail');
  await page.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('dialog', { name: 'Delete this customer?' }).getByRole('button', { name: 'Delete customer' }).click();
  await page.waitForURL(/\/customers$/);
  let gone = false;
  try { await t.call(ownerToken, 'GET', `/api/customers/${id}`); } catch (err) { gone = String(err).includes(' 404 '); }
  t.check(gone, 'deleting after confirmation removes the customer');
}

async function metrics(t, page, ownerToken, ingested) {
  // Two invoices in EUR and one in USD for the customer.
  const invoice = `e2e.invoice_${word()}`;
  for (const [amount, currency] of [[1250, 'EUR'], [99, 'EUR'], [5000, 'USD']]) {
    await t.call(ingested.ingestKey, 'POST', '/api/events/ingest', { type: invoice, customerEmail: ingested.email, payload: { amount, currency } });
  }
  await page.goto(t.base + '/metrics');
  await page.getByRole('heading', { level: 1, name: 'Metrics' }).waitFor();
  await page.getByRole('button', { name: 'Define metric' }).click();
  let dialog = page.getByRole('dialog', { name: 'Define a metric' });
  const name = unique('E2E EUR revenue');
  await dialog.getByLabel(/^Name/).fill(name);
  await dialog.getByText('Sum a field').click();
  await dialog.getByRole('combobox', { name: /^Event type/ }).fill(invoice);
  await dialog.getByLabel(/^Field/).fill('amount');
  await dialog.getByRole('button', { name: 'Add filter' }).click();
  await dialog.getByLabel('Payload path').fill('currency');
  await dialog.getByRole('textbox', { name: 'Value' }).fill('EUR');
  await dialog.getByRole('button', { name: 'Define metric' }).click();
  await page.getByRole('heading', { level: 1, name }).waitFor();
  const id = new URL(page.url()).pathname.split('/').pop();
  const stored = await t.call(ownerToken, 'GET', `/api/metrics/${id}`);
  t.check(stored.kind === 'sum' && stored.field === 'amount' && stored.filters[0]?.value === 'EUR', 'the metric is stored as defined (sum of amount where currency equals "EUR")');
  await page.getByRole('button', { name: 'Compute' }).click();
  const value = page.getByLabel('Value');
  await value.waitFor();
  const shown = await value.innerText();
  t.check(/13[.,]49/.test(shown) && /€|EUR/.test(shown), `the sum computes to 13.49 EUR shown as money (${shown})`);
  t.check(await page.getByRole('table', { name: 'Series' }).isVisible(), 'the daily series is shown as a table');
  await t.shot(page, 'metric-detail');
  await t.axe(page, 'metric detail');

  // A definition the server refuses shows the problem beside its field.
  await page.getByRole('button', { name: 'Edit' }).click();
  dialog = page.getByRole('dialog', { name: 'Edit metric' });
  await dialog.getByLabel(/^Field/).fill('not a path!');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.getByText('a sum needs a dotted payload path').waitFor();
  // The browser reports the refused request (422) on its console; that one is expected here.
  for (let i = t.problems.length - 1; i >= 0; i--) if (/\[integrations\].*status of 422/.test(t.problems[i])) t.problems.splice(i, 1);
  const fieldError = await dialog.getByLabel(/^Field/).getAttribute('aria-invalid');
  t.check(fieldError === 'true', 'a refused field is shown beside its input, which is marked invalid');
  t.check((await t.call(ownerToken, 'GET', `/api/metrics/${id}`)).field === 'amount', 'the refused change is not stored');
  await dialog.getByRole('button', { name: 'Cancel' }).click();

  await page.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('dialog', { name: 'Delete this metric?' }).getByRole('button', { name: 'Delete metric' }).click();
  await page.waitForURL(/\/metrics$/);
  await page.getByRole('table', { name: 'Metrics' }).getByRole('link', { name }).waitFor({ state: 'detached' });
  t.check(true, 'a deleted metric leaves the list');
  let gone = false;
  try { await t.call(ownerToken, 'GET', `/api/metrics/${id}`); } catch (err) { gone = String(err).includes(' 404 '); }
  t.check(gone, 'deleting after confirmation removes the metric');
}

export const title = 'webhooks (secret once, test, replay), machine keys, events explorer, customers, metrics';

export default async function (t) {
  const started = Date.now();
  const lap = (what) => { console.log(`     (${what} done at ${((Date.now() - started) / 1000).toFixed(1)} s)`); };
  const ownerToken = await t.token(t.owner);
  const { page, context } = await t.newPage({ label: 'integrations', expect401: true });
  await t.signIn(page, t.owner);
  const steps = [
    ['webhook', () => webhookSecretAndDeliveries(t, page, ownerToken)],
    ['machine key', () => machineKey(t, page)],
  ];
  for (const [what, step] of steps) {
    try { await step(); lap(what); } catch (err) { t.check(false, `${what}: ${err instanceof Error ? err.stack : String(err)}`); await t.shot(page, `fail-${what.replace(/\s+/g, '-')}`); }
  }
  let ingested;
  try { ingested = await eventsExplorer(t, page, ownerToken); lap('events'); } catch (err) { t.check(false, `events: ${err instanceof Error ? err.stack : String(err)}`); await t.shot(page, 'fail-events'); }
  if (ingested) {
    for (const [what, step] of [['customers', customers], ['metrics', metrics]]) {
      try { await step(t, page, ownerToken, ingested); lap(what); } catch (err) { t.check(false, `${what}: ${err instanceof Error ? err.stack : String(err)}`); await t.shot(page, `fail-${what}`); }
    }
  }
  await context.close();
}
