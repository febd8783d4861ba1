// Survey scores on dashboards and in the portal, and acceptances recorded for partners. Two
// partners at a level of the spec's own answer CSAT and NPS surveys (through their public links).
// The operator defines a CSAT metric in the metric form and adds the NPS metric from the dashboard
// builder; a dashboard for the level shows both. Each partner's portal dashboard shows its own
// scores only, and equals the scores the API reports; the portal's Survey scores page shows the
// partner's own. The operator records on the console agreement page an acceptance given outside
// the portal; the partner finds it among its accepted agreements with its certificate. axe checks
// every page.
import { unique } from '../lib.mjs';

export const title = 'survey metrics: CSAT and NPS widgets per partner, portal survey scores, acceptance recorded on a partner\'s behalf';

const word = () => Math.random().toString(36).slice(2, 8);
const input = (page, scope, label) => scope.getByLabel(new RegExp(`^${label}`)).and(page.locator('input:not([type=hidden])')).first();

async function partnerUser(t, ownerToken, partner, name) {
  const email = `${unique('sm').replace(/\s+/g, '-').toLowerCase()}@partner.test`;
  const password = 'sm-pass-' + Math.random().toString(36).slice(2);
  const user = await t.call(ownerToken, 'POST', `/api/partners/${partner.id}/users`, { email, name, roles: ['partner_admin'] });
  const token = (await t.call(null, 'POST', '/api/auth/accept-invitation', { token: user.invitation.token, password })).accessToken;
  return { email, password, token };
}

// answered holds the survey messages whose link was answered already.
const answered = new Set();

/** Sends one survey of kind to partner and answers it with score through the link of the new message the outbox holds. */
async function answer(t, ownerToken, partner, email, kind, score) {
  const since = new Date(Date.now() - 1000).toISOString();
  await t.call(ownerToken, 'POST', '/api/surveys', { kind, partnerIds: [partner.id] });
  for (let i = 0; i < 60; i++) {
    const list = await t.call(ownerToken, 'GET', `/api/mail/messages?purpose=survey&to=${encodeURIComponent(email)}&createdFrom=${encodeURIComponent(since)}&limit=20`);
    const fresh = list.data.find((m) => !answered.has(m.id));
    if (fresh) {
      answered.add(fresh.id);
      const msg = await t.call(ownerToken, 'GET', `/api/mail/messages/${fresh.id}`);
      const m = /#token=([A-Za-z0-9_-]+)/.exec(msg.text);
      if (m) {
        await t.call(null, 'POST', `/api/survey-links/${m[1]}`, { score });
        return;
      }
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`no ${kind} survey reached ${email}`);
}

export default async function (t) {
  const ownerToken = await t.token(t.owner);
  const level = `Scores ${word()}`;
  const alpha = await t.call(ownerToken, 'POST', '/api/partners', { name: unique('Scores Alpha'), type: 'reseller', level });
  const bravo = await t.call(ownerToken, 'POST', '/api/partners', { name: unique('Scores Bravo'), type: 'reseller', level });
  const a = await partnerUser(t, ownerToken, alpha, 'Ana Alpha');
  const b = await partnerUser(t, ownerToken, bravo, 'Ben Bravo');
  // Alpha: CSAT 5 and 2 (50 %), NPS 10 (+100). Bravo: CSAT 1 (0 %), NPS 3 (-100).
  for (const [p, u, kind, score] of [[alpha, a, 'csat', 5], [alpha, a, 'csat', 2], [alpha, a, 'nps', 10], [bravo, b, 'csat', 1], [bravo, b, 'nps', 3]]) {
    await answer(t, ownerToken, p, u.email, kind, score);
  }

  const op = await t.newPage({ label: 'survey metrics console', viewport: { width: 1400, height: 1000 } });
  const page = op.page;
  await t.signIn(page, t.owner);

  // The CSAT metric, defined in the metric form: it needs no event type or field.
  const csatName = unique('CSAT');
  await page.goto(t.base + '/metrics');
  await page.getByRole('heading', { level: 1, name: 'Metrics' }).waitFor();
  await page.getByRole('button', { name: 'Define metric' }).click();
  const dialog = page.getByRole('dialog', { name: 'Define a metric' });
  await dialog.getByLabel('Name').fill(csatName);
  await dialog.getByText('CSAT', { exact: true }).click();
  await dialog.getByTestId('score-kind-help').waitFor();
  t.check(!(await input(page, dialog, 'Event type').count()), 'a CSAT metric asks for no event type');
  await t.axe(page, '[console] metric form, CSAT');
  await dialog.getByRole('button', { name: 'Define metric' }).click();
  await page.getByRole('heading', { level: 1, name: csatName }).waitFor();
  const csat = (await t.call(ownerToken, 'GET', '/api/metrics?limit=100')).data.find((m) => m.name === csatName);
  t.check(csat?.kind === 'csat' && csat.eventType === 'survey.responded' && csat.unit === 'score', `the metric reads survey answers (${JSON.stringify(csat)})`);
  await page.getByRole('button', { name: 'Compute' }).click();
  await page.getByTestId('metric-result').waitFor();
  await t.axe(page, '[console] CSAT metric computed');

  // A dashboard for the level: the CSAT number, then the NPS series whose metric the builder adds.
  const dash = await t.call(ownerToken, 'POST', '/api/dashboards', { name: unique('Satisfaction'), levels: [level],
    widgets: [{ kind: 'metric', metricId: csat.id, range: 'last_7_days', x: 0, y: 0, w: 3, h: 3 }] });
  const existingNps = (await t.call(ownerToken, 'GET', '/api/metrics?limit=100')).data.find((m) => m.kind === 'nps');
  await page.goto(`${t.base}/dashboards/${dash.id}`);
  await page.getByRole('heading', { level: 1, name: dash.name }).waitFor();
  await page.getByRole('button', { name: 'Add widget' }).click();
  await page.getByRole('menuitem', { name: /^Time series/ }).click();
  const panel = page.getByRole('dialog', { name: 'Time series widget' });
  await panel.waitFor();
  if (!existingNps) {
    await panel.getByRole('button', { name: 'Add NPS metric' }).click();
    await page.getByText('Metric NPS defined').waitFor();
  }
  const nps = (await t.call(ownerToken, 'GET', '/api/metrics?limit=100')).data.find((m) => m.kind === 'nps');
  t.check(!!nps, 'the builder defines the NPS metric');
  if (existingNps) {
    await input(page, panel, 'Metric').click();
    await page.getByRole('option', { name: `${nps.name} (NPS)` }).click();
  }
  await t.axe(page, '[console] dashboard builder with survey scores');
  await panel.getByRole('button', { name: 'Close' }).first().click().catch(() => page.keyboard.press('Escape'));
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.getByText('Dashboard saved').waitFor();
  const saved = await t.call(ownerToken, 'GET', `/api/dashboards/${dash.id}`);
  t.check(saved.widgets.some((w) => w.metricId === nps.id && w.kind === 'time-series'), 'the dashboard shows the NPS series');

  // Each partner's portal dashboard: its own scores, equal to the API's scores; never the other's.
  const from = new Date(Date.now() - 7 * 86_400_000).toISOString();
  for (const [u, p, wantCsat, wantNps] of [[a, alpha, '50 %', '+100'], [b, bravo, '0 %', '-100']]) {
    const scores = await t.call(u.token, 'GET', `/api/survey-scores?kind=csat&groupBy=partner&from=${encodeURIComponent(from)}`);
    t.check(scores.groups.length === 1 && scores.groups[0].group === p.id && `${scores.groups[0].score} %` === wantCsat,
      `${p.name}'s API CSAT is ${wantCsat} (${JSON.stringify(scores.groups)})`);
    const pp = await t.newPage({ label: `portal ${p.name}` });
    await t.signIn(pp.page, u);
    await pp.page.goto(`${t.base}/portal`);
    const value = pp.page.getByTestId('widget-value').first();
    await value.waitFor();
    t.check((await value.innerText()).trim() === wantCsat, `${p.name}'s portal CSAT reads ${wantCsat} (${await value.innerText()})`);
    const total = pp.page.getByTestId('widget-total').first();
    t.check((await total.innerText()).trim() === wantNps, `${p.name}'s portal NPS reads ${wantNps} (${await total.innerText()})`);
    await t.axe(pp.page, `[portal] dashboard with survey scores (${p === alpha ? 'Alpha' : 'Bravo'})`);

    // The portal's Survey scores page.
    await pp.page.goto(`${t.base}/portal/survey-scores`);
    await pp.page.getByRole('heading', { level: 1, name: 'Survey scores' }).waitFor();
    const cell = pp.page.getByTestId('csat-30');
    await cell.filter({ hasText: '%' }).waitFor();
    t.check((await cell.innerText()).trim() === wantCsat, `${p.name}'s survey scores page reads CSAT ${wantCsat} (${await cell.innerText()})`);
    t.check((await pp.page.getByTestId('nps-30').innerText()).trim() === wantNps, `${p.name}'s survey scores page reads NPS ${wantNps}`);
    await t.axe(pp.page, `[portal] survey scores (${p === alpha ? 'Alpha' : 'Bravo'})`);
    await pp.context.close();
  }

  // The operator records Alpha's acceptance given on paper; Alpha sees it with its certificate.
  const agreement = await t.call(ownerToken, 'POST', '/api/agreements', { kind: 'nda', title: unique('Paper NDA') });
  const version = await t.call(ownerToken, 'POST', `/api/agreements/${agreement.id}/versions`, { markdown: '# NDA\n\nKeep it secret.' });
  await t.call(ownerToken, 'POST', `/api/agreements/${agreement.id}/versions/${version.id}/publish`, {});
  await page.goto(`${t.base}/agreements/${agreement.id}`);
  await page.getByRole('heading', { level: 1, name: agreement.title }).waitFor();
  await page.getByRole('button', { name: 'Record an acceptance' }).click();
  const rec = page.getByRole('dialog', { name: 'Record an acceptance on a partner\'s behalf' });
  const partnerInput = input(page, rec, 'Partner');
  await partnerInput.click();
  await partnerInput.fill(alpha.name);
  await page.getByRole('option', { name: alpha.name, exact: true }).click();
  await rec.getByLabel('The partner accepted this version').check();
  await t.axe(page, '[console] record an acceptance');
  await rec.getByRole('button', { name: 'Record acceptance' }).click();
  await page.getByRole('dialog', { name: 'Acceptance certificate' }).waitFor();
  const accepted = (await t.call(ownerToken, 'GET', `/api/agreement-acceptances?agreementId=${agreement.id}`)).data;
  t.check(accepted.length === 1 && accepted[0].partnerId === alpha.id && accepted[0].onBehalf, `the acceptance is recorded for Alpha, on its behalf (${JSON.stringify(accepted)})`);
  await op.context.close();

  const ap = await t.newPage({ label: 'portal accepted agreements' });
  await t.signIn(ap.page, a);
  await ap.page.goto(`${t.base}/portal/agreements`);
  const table = ap.page.getByRole('table', { name: 'Accepted agreements' });
  // The title shows only for agreements the partner may read (those required of it): this one
  // was accepted on paper without a requirement, so its row is found by the on-behalf mark.
  await table.getByText('v1 (recorded for you)').waitFor();
  await table.getByRole('button', { name: /^Certificate of version 1/ }).click();
  const certDialog = ap.page.getByRole('dialog', { name: 'Acceptance certificate' });
  await certDialog.getByRole('button', { name: 'Download certificate' }).waitFor();
  await t.axe(ap.page, '[portal] accepted agreement certificate');
  await ap.context.close();
  const bravoList = await t.call(b.token, 'GET', '/api/agreement-acceptances');
  t.check(!bravoList.data.some((x) => x.agreementId === agreement.id), 'Bravo does not see Alpha\'s acceptance');
}
