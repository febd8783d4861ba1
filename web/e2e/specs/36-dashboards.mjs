// Dashboards as people use them: an operator defines a money metric in the form (event type from
// the catalogue, field, unit and currency), builds a dashboard with a number, a time series and
// an event list, each previewing as it is configured, arranges them on the grid by dragging and
// resizing, and saves; events of two partners come in through the API with a machine key; a
// partner user of one partner sees its own numbers in the portal's dashboard (DOM text and chart
// tooltips) and none of the other partner's.
import { unique } from '../lib.mjs';

export const title = 'dashboards: metric form, builder grid with previews and charts, partner sees only its own numbers';

/** The input labelled label (a text input, an autocomplete or a select) inside scope. */
const input = (page, scope, label) => scope.getByLabel(new RegExp(`^${label}`)).and(page.locator('input:not([type=hidden])')).first();

const word = () => Math.random().toString(36).slice(2, 8);

export default async function (t) {
  const ownerToken = await t.token(t.owner);
  const level = `Dash ${word()}`;
  const type = `e2e.invoice_paid_${word()}`;
  const alpha = await t.call(ownerToken, 'POST', '/api/partners', { name: unique('Dash Alpha'), type: 'reseller', level });
  const bravo = await t.call(ownerToken, 'POST', '/api/partners', { name: unique('Dash Bravo'), type: 'reseller', level });
  const alphaMail = `${word()}@alpha-customer.test`;
  const bravoMail = `${word()}@bravo-customer.test`;
  await t.call(ownerToken, 'POST', '/api/customers', { email: alphaMail, partnerId: alpha.id });
  await t.call(ownerToken, 'POST', '/api/customers', { email: bravoMail, partnerId: bravo.id });
  // An integration sends paid invoices with a machine key: Alpha 12.34 + 43.21 EUR, Bravo 9,876.54 EUR.
  const key = (await t.call(ownerToken, 'POST', '/api/apikeys', { name: unique('e2e dashboards'), scopes: ['events:write'] })).key;
  for (const [email, amount] of [[alphaMail, 1234], [alphaMail, 4321], [bravoMail, 987654]]) {
    await t.call(key, 'POST', '/api/events/ingest', { type, customerEmail: email, payload: { amount, currency: 'EUR' } });
  }

  const { page } = await t.newPage({ label: 'dashboard builder', viewport: { width: 1400, height: 1000 } });
  await t.signIn(page, t.owner);

  // The metric, defined in the form; its field is offered from the events of its type.
  const metricName = unique('Paid revenue');
  await page.goto(t.base + '/metrics');
  await page.getByRole('heading', { level: 1, name: 'Metrics' }).waitFor();
  await page.getByRole('button', { name: 'Define metric' }).click();
  const dialog = page.getByRole('dialog', { name: 'Define a metric' });
  await dialog.getByLabel('Name').fill(metricName);
  await dialog.getByText('Sum a field').click();
  await input(page, dialog, 'Event type').fill(type);
  await page.keyboard.press('Escape');
  const field = input(page, dialog, 'Field');
  await field.click();
  const offered = page.getByRole('option', { name: 'amount' });
  const fieldOffered = await offered.waitFor({ timeout: 10000 }).then(() => true, () => false);
  t.check(fieldOffered, 'the form offers the payload field amount from the events of the type');
  if (fieldOffered) await offered.click(); else await field.fill('amount');
  await input(page, dialog, 'Unit').click();
  await page.getByRole('option', { name: 'Money (minor units)' }).click();
  await input(page, dialog, 'Currency').fill('EUR');
  await page.keyboard.press('Escape');
  await t.shot(page, 'dashboards-metric-form');
  await dialog.getByRole('button', { name: 'Define metric' }).click();
  await page.getByRole('heading', { level: 1, name: metricName }).waitFor();
  const metric = (await t.call(ownerToken, 'GET', '/api/metrics?limit=100')).data.find((m) => m.name === metricName);
  t.check(metric?.unit === 'money' && metric.currency === 'EUR' && metric.field === 'amount' && metric.kind === 'sum',
    `the metric is a sum of amount in EUR (${JSON.stringify(metric && { kind: metric.kind, field: metric.field, unit: metric.unit, currency: metric.currency })})`);

  // The dashboard, for the partners' level.
  const dashName = unique('Partner revenue');
  await page.goto(t.base + '/dashboards');
  await page.getByRole('heading', { level: 1, name: 'Dashboards' }).waitFor();
  await page.getByRole('button', { name: 'New dashboard' }).click();
  await page.getByRole('dialog', { name: 'New dashboard' }).getByLabel('Name').fill(dashName);
  await page.getByRole('button', { name: 'Create dashboard' }).click();
  await page.getByRole('heading', { level: 1, name: dashName }).waitFor();
  const levels = input(page, page, 'Shown to levels');
  await levels.fill(level);
  await levels.press('Enter');
  await page.keyboard.press('Escape');

  const panel = page.getByRole('dialog', { name: /widget$/ });
  const chooseMetric = async () => {
    const select = input(page, panel, 'Metric');
    await select.click();
    await select.fill(metricName);
    await page.getByRole('option', { name: metricName }).click();
  };
  const all = /9[.,\s\u202f]?932[.,]09/; // both partners: 9,932.09
  // A number.
  await page.getByRole('button', { name: 'Add widget' }).click();
  await page.getByRole('menuitem', { name: /^Number/ }).click();
  await chooseMetric();
  const preview = panel.getByTestId('widget-panel-preview');
  await preview.getByText(all).waitFor();
  t.check(true, 'the number previews the sum of every partner, 9,932.09 € , while it is configured');
  await t.shot(page, 'dashboards-widget-panel');
  await panel.getByRole('button', { name: 'Done' }).click();
  // A time series.
  await page.getByRole('button', { name: 'Add widget' }).click();
  await page.getByRole('menuitem', { name: /^Time series/ }).click();
  await chooseMetric();
  await input(page, panel, 'Range').click();
  await page.getByRole('option', { name: 'Last 7 days' }).click();
  await preview.locator('canvas').waitFor();
  t.check(await preview.getByTestId('widget-total').innerText().then((s) => all.test(s)), 'the time series previews as a chart with the total');
  await panel.getByRole('button', { name: 'Done' }).click();
  // An event list.
  await page.getByRole('button', { name: 'Add widget' }).click();
  await page.getByRole('menuitem', { name: /^Event list/ }).click();
  await input(page, panel, 'Event type').fill(type);
  await page.keyboard.press('Escape');
  await input(page, panel, 'Title').fill('Latest paid invoices');
  await preview.getByText(type).first().waitFor();
  t.check(await preview.getByText(type).count() === 3, 'the event list previews the three paid invoices');
  await panel.getByRole('button', { name: 'Done' }).click();

  // Arrange: drag the event list up beside the number, then widen the time series.
  const widgets = page.getByTestId('builder-widget');
  t.check(await widgets.count() === 3, 'the grid holds the three widgets');
  const list = page.locator('[data-widget-kind="event-list"]');
  const series = page.locator('[data-widget-kind="time-series"]');
  await page.locator('[data-widget-kind="metric"] canvas, [data-widget-kind="time-series"] canvas').first().waitFor();
  const handle = list.getByRole('button', { name: 'Move Latest paid invoices', exact: true });
  const hb = await handle.boundingBox();
  const grid = await page.getByTestId('builder-grid').boundingBox();
  if (hb && grid) {
    await page.mouse.move(hb.x + hb.width / 2, hb.y + hb.height / 2);
    await page.mouse.down();
    const toX = grid.x + grid.width * 0.55, toY = grid.y + 20;
    for (let i = 1; i <= 12; i++) await page.mouse.move(hb.x + (toX - hb.x) * i / 12, hb.y + (toY - hb.y) * i / 12);
    await page.mouse.up();
  }
  // The grid animates widgets into place after the drop: take the corner where it comes to rest.
  const corner = series.locator('.react-resizable-handle');
  let cb = await corner.boundingBox();
  for (let i = 0; i < 20; i++) {
    await page.waitForTimeout(100);
    const now = await corner.boundingBox();
    if (now && cb && now.x === cb.x && now.y === cb.y) break;
    cb = now;
  }
  if (cb && grid) {
    await page.mouse.move(cb.x + cb.width / 2, cb.y + cb.height / 2);
    await page.mouse.down();
    for (let i = 1; i <= 10; i++) await page.mouse.move(cb.x + (grid.x + grid.width - 20 - cb.x) * i / 10, cb.y + 60 * i / 10);
    await page.mouse.up();
  }
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('Dashboard saved').waitFor();
  const saved = (await t.call(ownerToken, 'GET', '/api/dashboards?limit=100')).data.find((d) => d.name === dashName)
    ?? await (async () => { let c = ''; for (;;) { const p = await t.call(ownerToken, 'GET', `/api/dashboards?limit=100&cursor=${c}`); const f = p.data.find((d) => d.name === dashName); if (f || !p.nextCursor) return f; c = p.nextCursor; } })();
  const byKind = Object.fromEntries((saved?.widgets ?? []).map((w) => [w.kind, w]));
  t.check(saved?.levels.includes(level) && saved.widgets.length === 3, `the dashboard is saved for level ${level} with three widgets`);
  t.check((byKind['event-list']?.x ?? 0) >= 3 && (byKind['event-list']?.y ?? 0) === 0,
    `dragging placed the event list beside the number (${JSON.stringify(byKind['event-list'] && { x: byKind['event-list'].x, y: byKind['event-list'].y })})`);
  t.check((byKind['time-series']?.w ?? 0) > 6, `resizing widened the time series to ${String(byKind['time-series']?.w)} columns`);
  await t.axe(page, 'the dashboard builder');
  await t.shot(page, 'dashboards-builder');

  // Alpha's user sees Alpha's numbers only, in the DOM and in the chart's tooltips.
  const email = `${word()}@alpha-partner.test`;
  const password = 'dash-pass-' + word();
  const user = await t.call(ownerToken, 'POST', `/api/partners/${alpha.id}/users`, { email, name: 'Alma Alpha', roles: ['partner_admin'] });
  await t.call(null, 'POST', '/api/auth/accept-invitation', { token: user.invitation.token, password });
  const pp = await t.newPage({ label: 'portal dashboard', viewport: { width: 1400, height: 1000 } });
  await t.signIn(pp.page, { email, password });
  await pp.page.getByRole('heading', { level: 2, name: dashName }).waitFor();
  const grid2 = pp.page.getByTestId('dashboard-grid');
  const alphaTotal = /55[.,]55/;
  const bravoNumbers = /9[.,\s\u202f]?876[.,]54|9[.,\s\u202f]?932[.,]09|987654|993209/;
  await grid2.getByTestId('widget-value').getByText(alphaTotal).waitFor();
  await grid2.locator('canvas').first().waitFor();
  const text = await grid2.innerText();
  const hidden = await grid2.evaluate((el) => el.textContent ?? '');
  t.check(alphaTotal.test(text) && text.includes('Latest paid invoices'), 'the portal shows Alpha its 55.55 € and its invoices');
  t.check(!bravoNumbers.test(hidden), 'no text of the portal dashboard (the chart\'s table included) holds Bravo\'s or the combined numbers');
  t.check(await grid2.getByText(type).count() === 2, 'the event list holds Alpha\'s two invoices only');
  const chart = grid2.locator('canvas').first();
  const box = await chart.boundingBox();
  const tips = new Set();
  if (box) {
    for (let i = 0; i <= 40; i++) {
      await pp.page.mouse.move(box.x + 2 + (box.width - 4) * i / 40, box.y + box.height / 2);
      const tip = pp.page.getByTestId('chart-tooltip');
      if (await tip.count()) tips.add(await tip.innerText());
    }
  }
  const tipText = [...tips].join(' | ');
  t.check(tips.size > 0 && alphaTotal.test(tipText), `hovering the chart shows Alpha's 55.55 € in a tooltip (${[...tips].filter((s) => alphaTotal.test(s)).join('; ')})`);
  t.check(!bravoNumbers.test(tipText), 'no chart tooltip shows Bravo\'s or the combined numbers');
  await t.axe(pp.page, 'the portal dashboard');
  await t.shot(pp.page, 'dashboards-portal');
  await pp.context.close();
  await page.context().close();
}
