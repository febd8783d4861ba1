// Partner health. The demo tenant has a health model; the operator opens Health, sees the model in
// the editor, a tier name the server refuses is shown beside its field and nothing is saved; a
// component over one of the tenant's metrics, chosen from a list of them, is added and saved; Score
// now starts a run (a second one while it runs is shown as a notice), the partners appear with their
// tiers, filtered by tier; a partner's page shows its tier, score and the explanation of every
// component (the metric's by its name), whose contributions add up to the score, and its history.
// Both pages pass axe. The demo model is put back at the end.
import { unique } from '../lib.mjs';

export const title = 'partner health: the model editor and its 422, a metric component, score now, partners by tier, the explanation';

async function until(what, fn, ms = 60_000) {
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
  const before = await t.call(ownerToken, 'GET', '/api/health/model');
  t.check(before.components.length > 0 && before.tiers.length > 0, `the demo tenant has a health model (${before.components.length} components, ${before.tiers.length} tiers)`);
  const partner = await t.call(ownerToken, 'POST', '/api/partners', { name: unique('Health Partner'), type: 'reseller' });

  const op = await t.newPage({ label: 'health console' });
  const page = op.page;
  try {
    await t.signIn(page, t.owner);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Health', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Health' }).waitFor();
    const components = page.getByRole('list', { name: 'Components' });
    await components.getByRole('listitem').first().waitFor();
    t.check(await components.getByRole('listitem').count() === before.components.length, 'the editor shows every component of the model');
    t.check(await page.getByLabel('Tier 1 name').inputValue() === before.tiers[0].name, 'the editor shows the tiers');
    await t.axe(page, '[console] health');

    // A tier name the server refuses is named beside its field; the model keeps its version.
    await page.getByLabel('Tier 1 name').fill('Not Valid');
    await page.getByRole('button', { name: 'Save model' }).click();
    await page.locator('input[aria-invalid="true"]').first().waitFor();
    const invalid = await page.getByLabel('Tier 1 name').getAttribute('aria-invalid');
    const described = await page.getByLabel('Tier 1 name').evaluate((el) => (el.getAttribute('aria-describedby') ?? '').split(' ').map((id) => document.getElementById(id)?.textContent ?? '').join(' '));
    t.check(invalid === 'true' && /pattern|lower-case/.test(described), `the refused tier name is named beside its field (${described.trim()})`);
    t.check((await t.call(ownerToken, 'GET', '/api/health/model')).version === before.version, 'a refused model is not saved');
    await page.reload();
    await page.getByLabel('Tier 1 name').waitFor();

    // A component over one of the tenant's metrics, picked from the list of metrics.
    const metric = await t.call(ownerToken, 'POST', '/api/metrics', { name: unique('Invoiced'), kind: 'sum', eventType: 'invoice.paid', field: 'amount', unit: 'money', currency: 'EUR' });
    await page.reload();
    await page.getByLabel('Tier 1 name').waitFor();
    await page.getByRole('button', { name: 'Add component' }).click();
    const k = before.components.length + 1;
    await page.getByLabel(`Component ${k} source`, { exact: true }).selectOption('metric');
    const metricSelect = page.getByLabel(`Component ${k} metric`, { exact: true });
    await metricSelect.locator(`option[value="${metric.id}"]`).waitFor({ state: 'attached' });
    await metricSelect.selectOption(metric.id);
    await page.getByLabel(`Component ${k} zero at`, { exact: true }).fill('0');
    await page.getByLabel(`Component ${k} full at`, { exact: true }).fill('100000');
    t.check(/minor units of EUR/.test(await page.getByRole('listitem', { name: `Component ${k}` }).textContent()), 'the thresholds of a money metric are in minor units of its currency');
    await page.getByRole('button', { name: 'Save model' }).click();
    await page.getByText(/Health model saved/).waitFor();
    const withMetric = await t.call(ownerToken, 'GET', '/api/health/model');
    const added = withMetric.components[k - 1];
    t.check(withMetric.version === before.version + 1 && added?.source === 'metric' && added?.metricId === metric.id && added?.windowDays === 90 && added?.zeroAt === 0,
      `the metric component is saved (${JSON.stringify(added)})`);
    await t.axe(page, '[console] health, metric component');

    // Score now; the partners appear with their tiers.
    await page.getByRole('button', { name: 'Score now' }).click();
    await page.getByText('Scoring started').waitFor();
    const runs = await t.call(ownerToken, 'GET', '/api/health/runs?limit=1');
    t.check(runs.data[0]?.trigger === 'manual', `the run is opened on demand (${runs.data[0]?.trigger})`);
    if (!runs.data[0].finishedAt) {
      await page.getByRole('button', { name: 'Score now' }).click();
      const notice = await page.getByText('A scoring run is under way').waitFor({ timeout: 5_000 }).then(() => true, () => false);
      t.check(notice || !!(await t.call(ownerToken, 'GET', '/api/health/runs?limit=1')).data[0].finishedAt, 'a second run while one runs is shown as a notice');
    }
    const scored = await until('the run to score the partner', async () => {
      const list = await t.call(ownerToken, 'GET', '/api/health/partners?limit=100');
      return list.data.find((h) => h.partnerId === partner.id);
    });
    await page.reload();
    const table = page.getByRole('table', { name: 'Partner health' });
    await table.getByRole('row').nth(1).getByRole('link').waitFor();
    const tierNames = before.tiers.map((x) => x.name.replaceAll('_', ' '));
    const firstRow = (await table.getByRole('row').nth(1).getByRole('cell').allTextContents());
    t.check(tierNames.includes(firstRow[1]), `the partners are listed with their tier (${firstRow.join(' | ')})`);
    await page.getByRole('combobox', { name: 'Tier' }).click();
    await page.getByRole('option', { name: scored.tier.replaceAll('_', ' '), exact: true }).click();
    const shownTier = scored.tier.replaceAll('_', ' ');
    const filtered = await until('the tier filter to apply', async () => {
      const tiersShown = await table.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.children[1]?.textContent ?? ''));
      return tiersShown.length > 0 && tiersShown.every((x) => x === shownTier) ? tiersShown : null;
    }, 15_000).catch(() => null);
    t.check(filtered !== null, `the tier filter lists only ${scored.tier} (${filtered?.length ?? 0} rows)`);
    await table.getByRole('link', { name: partner.name }).waitFor();
    // The pointer left on the filtered row would hover-highlight it under the link.
    await page.mouse.move(0, 0);
    await t.shot(page, 'health-console');
    await t.axe(page, '[console] health, scored');

    // The partner's page explains the score.
    await table.getByRole('link', { name: partner.name }).click();
    await page.getByRole('heading', { level: 1, name: partner.name }).waitFor();
    const card = page.getByRole('region', { name: 'Health' }).or(page.locator('section[aria-labelledby="partner-health-title"]')).first();
    const explanation = card.getByRole('table', { name: 'Health explanation' });
    await explanation.waitFor();
    const rows = await explanation.locator('tbody tr').count();
    t.check(rows === withMetric.components.length, `the explanation lists every component (${rows})`);
    await explanation.getByRole('cell', { name: metric.name }).waitFor();
    t.check(true, 'the explanation names the metric of the metric component');
    t.check((await card.getByLabel('Health score').textContent()) === `${scored.score.toFixed(1)} / 100`, 'the card shows the partner\'s score');
    await card.getByText(scored.tier.replaceAll('_', ' '), { exact: true }).first().waitFor();
    const contributions = await explanation.locator('tbody tr').evaluateAll((trs) => trs.map((r) => Number(r.children[5]?.textContent ?? 'NaN')));
    const sum = contributions.reduce((a, b) => a + b, 0);
    t.check(Math.abs(sum - scored.score) < 0.1 * contributions.length + 0.05, `the contributions add up to the score (${sum.toFixed(2)} vs ${scored.score})`);
    await card.getByRole('table', { name: 'Health history' }).locator('tbody tr').first().waitFor();
    await t.shot(page, 'health-partner');
    await t.axe(page, '[console] partner with health');
    await t.call(ownerToken, 'PUT', '/api/health/model', { components: before.components, tiers: before.tiers, hour: before.hour });
  } finally {
    await op.context.close();
  }
}
