// Legal agreements through both faces. An operator adds an agreement, writes and publishes a version
// required of one level (this spec's own, so no other spec's partner is held back). The partner at
// that level sees only the agreement in the portal, whatever address it opens, with the exact text
// and its SHA-256; the API refuses its deal registration (AGREEMENT_REQUIRED). It accepts and the
// portal opens; deals register. The operator sees the acceptance, exports it as CSV and downloads its
// certificate; a grace period lets another partner at the level in without accepting. The
// operator ends the requirement at the end.
import { readFileSync } from 'node:fs';
import { unique } from '../lib.mjs';

export const title = 'agreements: publish a required version, the portal held until accepted, acceptance record, CSV, certificate, grace';

async function pick(page, scope, label, option) {
  const input = scope.getByLabel(new RegExp(`^${label}`)).and(page.locator('input:not([type=hidden])')).first();
  await input.click();
  await input.fill(option);
  await page.getByRole('option', { name: option, exact: true }).click();
  // A multi-select keeps its list open after a pick; leaving the field closes it, so that it does
  // not lie over the dialog's buttons (the longer the list of levels, the more it covers).
  await input.blur();
}

async function signInHeld(t, page, email, password, agreementTitle) {
  await page.goto(t.base + '/login');
  await page.getByLabel(/^Email/).fill(email);
  await page.getByLabel(/^Password/).and(page.locator('input')).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 2, name: agreementTitle }).waitFor();
}

async function partnerUser(t, ownerToken, partner, name, roles = ['partner_admin']) {
  const email = `${unique('agree').replace(/\s+/g, '-').toLowerCase()}@partner.test`;
  const password = 'agree-pass-' + Math.random().toString(36).slice(2);
  const user = await t.call(ownerToken, 'POST', `/api/partners/${partner.id}/users`, { email, name, roles });
  const token = (await t.call(null, 'POST', '/api/auth/accept-invitation', { token: user.invitation.token, password })).accessToken;
  return { email, password, token };
}

async function registerDeal(t, token) {
  const res = await fetch(`${t.base}/api/deals`, {
    method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ customerCompany: unique('Agreement Corp'), customerDomain: `${unique('agree').replace(/\s+/g, '').toLowerCase()}.example`, amountMinor: 100000, currency: 'EUR' }),
  });
  return { status: res.status, body: await res.json().catch(() => ({})) };
}

export default async function (t) {
  const ownerToken = await t.token(t.owner);
  const level = unique('Agreement level');
  await t.call(ownerToken, 'POST', '/api/levels', { name: level, rank: 1000 + Math.floor(Math.random() * 1e6) });
  const partnerName = unique('Agreeing Partner');
  const partner = await t.call(ownerToken, 'POST', '/api/partners', { name: partnerName, type: 'reseller' });
  const graceName = unique('Grace Partner');
  const gracePartner = await t.call(ownerToken, 'POST', '/api/partners', { name: graceName, type: 'reseller' });
  for (const p of [partner, gracePartner]) await t.call(ownerToken, 'PATCH', `/api/partners/${p.id}`, { level });
  const a = await partnerUser(t, ownerToken, partner, 'Alma Agree');
  const g = await partnerUser(t, ownerToken, gracePartner, 'Gus Grace');

  let agreementId;
  try {
    // The operator adds the agreement, writes version 1 and publishes it, required of the level.
    const op = await t.newPage({ label: 'agreements console' });
    const page = op.page;
    await t.signIn(page, t.owner);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Agreements' }).click();
    await page.getByRole('heading', { level: 1, name: 'Agreements' }).waitFor();
    const agreementTitle = unique('Reseller terms');
    await page.getByRole('button', { name: 'New agreement' }).click();
    const create = page.getByRole('dialog', { name: 'New agreement' });
    await create.getByLabel('Kind').selectOption('program_terms');
    await create.getByLabel('Title').fill(agreementTitle);
    await create.getByRole('button', { name: 'Add agreement' }).click();
    await page.getByRole('heading', { level: 1, name: agreementTitle }).waitFor();
    agreementId = new URL(page.url()).pathname.split('/').pop();

    const text = `# ${agreementTitle}\n\n1. Term. One year.\n2. <script>alert("not run")</script> stays text.\n`;
    await page.getByRole('button', { name: 'Write a new version' }).click();
    const write = page.getByRole('dialog', { name: 'Write a new version' });
    await write.getByLabel('Text (Markdown)').fill(text);
    await write.getByLabel('What changed').fill('First terms');
    await write.getByRole('button', { name: 'Save draft' }).click();
    await write.waitFor({ state: 'hidden' });
    await page.getByRole('button', { name: 'Publish version 1' }).click();
    const publish = page.getByRole('dialog', { name: 'Publish version 1?' });
    await pick(page, publish, 'Partners at these levels', level);
    await publish.getByRole('button', { name: 'Publish', exact: true }).click();
    await publish.waitFor({ state: 'hidden' });
    await page.getByTestId('requirement').getByText(`Version 1 must be accepted by levels ${level}`).waitFor();
    const agreement = await t.call(ownerToken, 'GET', `/api/agreements/${agreementId}`);
    const [version] = (await t.call(ownerToken, 'GET', `/api/agreements/${agreementId}/versions`)).data;
    t.check(agreement.kind === 'program_terms' && version.status === 'published' && agreement.requirement?.versionId === version.id
      && agreement.requirement.levels.join() === level && !agreement.requirement.allPartners,
      `version 1 is published and required of level ${level} (${version.status}, ${JSON.stringify(agreement.requirement?.levels)})`);
    t.check((await page.getByTestId('agreement-sha256').innerText()) === version.sha256, 'the console shows the published version\'s SHA-256');
    await t.shot(page, 'agreement-console');
    await t.axe(page, '[console] agreement');

    // The partner sees only the agreement, at any portal address, with its exact text and hash.
    const pp = await t.newPage({ label: 'agreements portal' });
    const portal = pp.page;
    await signInHeld(t, portal, a.email, a.password, agreementTitle);
    const shownText = await portal.getByRole('region', { name: `Text of ${agreementTitle}` }).innerText();
    t.check(shownText.trim() === text.trim() && (await portal.locator('script:text("not run")').count()) === 0,
      'the portal shows the version\'s exact text, markup as text');
    t.check((await portal.getByTestId('agreement-sha256').innerText()) === version.sha256, 'the portal shows the SHA-256 the partner accepts');
    t.check(!(await portal.getByRole('heading', { level: 1, name: /^Welcome/ }).isVisible()), 'the portal\'s dashboard is not shown');
    await portal.goto(`${t.base}/portal/deals`);
    await portal.getByRole('heading', { level: 2, name: agreementTitle }).waitFor();
    t.check(!(await portal.getByRole('heading', { level: 1, name: 'Deals' }).isVisible()), 'another portal address shows the agreement instead');
    await t.axe(portal, '[portal] agreement to accept');
    const refused = await registerDeal(t, a.token);
    t.check(refused.status === 403 && refused.body.code === 'AGREEMENT_REQUIRED',
      `the API refuses the partner's deal registration (${refused.status} ${refused.body.code}: ${refused.body.detail ?? refused.body.title})`);

    // A partner user whose role may not accept is told an administrator must.
    const role = `agree_viewer_${Math.random().toString(36).slice(2, 8)}`;
    await t.call(ownerToken, 'POST', '/api/roles', { name: role, audience: 'partner', permissions: ['profile:read', 'deals:read', 'agreements:read'] });
    const viewer = await partnerUser(t, ownerToken, partner, 'Vic Viewer', [role]);
    const vp = await t.newPage({ label: 'agreements viewer portal' });
    await signInHeld(t, vp.page, viewer.email, viewer.password, agreementTitle);
    await vp.page.getByText('An administrator must accept').waitFor();
    t.check(!(await vp.page.getByRole('button', { name: 'I accept' }).isVisible()), 'a partner user without agreements:accept is told an administrator must accept, with no "I accept"');
    await vp.context.close();

    // It accepts; the portal opens at the address asked for.
    await portal.getByLabel('I have read this agreement and accept it for my organisation').check();
    await portal.getByRole('button', { name: 'I accept' }).click();
    await portal.getByRole('heading', { level: 1, name: 'Deals' }).waitFor();
    t.check(true, 'after accepting, the portal opens its deals page');
    const registered = await registerDeal(t, a.token);
    t.check(registered.status === 201, `the partner registers a deal once it accepted (${registered.status})`);
    await portal.goto(`${t.base}/portal/agreements`);
    await portal.getByRole('cell', { name: agreementTitle, exact: true }).first().waitFor();
    t.check(true, 'the portal lists the acceptance under the agreement\'s title');
    await pp.context.close();

    // The operator sees the acceptance, exports it and downloads its certificate.
    const acceptances = (await t.call(ownerToken, 'GET', `/api/agreement-acceptances?agreementId=${agreementId}`)).data;
    const acceptance = acceptances.find((x) => x.partnerId === partner.id);
    t.check(!!acceptance && acceptance.sha256 === version.sha256 && acceptance.versionId === version.id,
      `the acceptance records the version and hash (${acceptances.length} acceptance(s))`);
    await page.reload();
    const table = page.getByRole('table', { name: 'Acceptances' });
    await table.getByRole('link', { name: partnerName }).waitFor();
    const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    const csvText = readFileSync(await csv.path(), 'utf8');
    t.check(csvText.includes(acceptance?.id ?? '-') && csvText.includes(version.sha256), `the CSV export holds the acceptance (${csv.suggestedFilename()})`);
    await table.getByRole('button', { name: `Certificate of acceptance ${acceptance?.id}` }).click();
    const certDialog = page.getByRole('dialog', { name: 'Acceptance certificate' });
    await certDialog.getByText(partnerName).waitFor();
    await t.axe(page, '[console] acceptance certificate');
    const [certFile] = await Promise.all([page.waitForEvent('download'), certDialog.getByRole('button', { name: 'Download certificate' }).click()]);
    const cert = JSON.parse(readFileSync(await certFile.path(), 'utf8'));
    t.check(cert.certificate?.acceptanceId === acceptance?.id && cert.certificate.sha256 === version.sha256 && cert.jws.split('.').length === 3,
      `the certificate downloads, signed (${certFile.suggestedFilename()})`);
    await certDialog.getByRole('button', { name: 'Close' }).click();

    // A grace period lets another partner at the level in without accepting.
    const before = await registerDeal(t, g.token);
    t.check(before.status === 403 && before.body.code === 'AGREEMENT_REQUIRED', `the other partner is refused before its grace period (${before.status})`);
    await page.goto(`${t.base}/agreements`);
    await page.getByRole('button', { name: 'Grant a grace period' }).click();
    const grace = page.getByRole('dialog', { name: 'Grant a grace period' });
    await pick(page, grace, 'Partner', graceName);
    await grace.getByLabel('Reason').fill('Their legal team reviews the terms.');
    await grace.getByRole('button', { name: 'Grant' }).click();
    await grace.waitFor({ state: 'hidden' });
    await page.getByRole('table', { name: 'Grace periods' }).getByRole('link', { name: graceName }).waitFor();
    await t.axe(page, '[console] agreements');
    const after = await registerDeal(t, g.token);
    t.check(after.status === 201, `in its grace period the other partner registers a deal without accepting (${after.status})`);
    const gp = await t.newPage({ label: 'agreements grace portal' });
    await t.signIn(gp.page, { email: g.email, password: g.password });
    await gp.page.getByTestId('agreement-banner').getByText(agreementTitle).waitFor();
    t.check(true, 'the partner in its grace period sees the portal with a banner naming the agreement');
    await gp.page.getByRole('link', { name: 'Read and accept' }).click();
    await gp.page.getByRole('heading', { level: 1, name: 'Agreements' }).waitFor();
    await t.axe(gp.page, '[portal] agreements in grace');
    await gp.context.close();

    // The operator ends the requirement: nothing is asked of the level any more.
    await page.goto(`${t.base}/agreements/${agreementId}`);
    await page.getByRole('button', { name: 'Stop requiring' }).click();
    await page.getByTestId('requirement').getByText('Partners are not required to accept this agreement.').waitFor();
    const pending = await t.call(g.token, 'GET', '/api/pending-agreements');
    t.check(!(await t.call(ownerToken, 'GET', `/api/agreements/${agreementId}`)).requirement && pending.data.length === 0,
      `the requirement is ended: the other partner has nothing pending (${pending.data.length})`);
    await op.context.close();
  } finally {
    // Nothing stays required for later specs.
    if (agreementId) await t.call(ownerToken, 'PUT', `/api/agreements/${agreementId}/requirement`, { versionId: '' });
  }
}
