// Tax records. A partner admin submits its W-9 details in the portal (the tax id is shown back
// only masked) and uploads the signed form; the owner finds the record on the console's Tax
// records page, approves it, sets the tax rule to block and back, and exports the year's payout
// totals as CSV. While the rule blocks, a partner without an approved record is refused a
// withdrawal with TAX_RECORD_REQUIRED. Both pages pass axe.
import { unique } from '../lib.mjs';

export const title = 'tax records: submit W-9 and signed form in the portal, review and rule in the console, payout totals CSV';

const minimalPDF = '%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n';

export default async function (t) {
  const ownerToken = await t.token(t.owner);
  const partner = await t.call(ownerToken, 'POST', '/api/partners', { name: unique('Tax Partner'), type: 'reseller' });
  const other = await t.call(ownerToken, 'POST', '/api/partners', { name: unique('Untaxed Partner'), type: 'reseller' });
  const email = `${unique('tax').replace(/\s+/g, '-').toLowerCase()}@partner.test`;
  const password = 'tax-pass-' + Math.random().toString(36).slice(2);
  const user = await t.call(ownerToken, 'POST', `/api/partners/${partner.id}/users`, { email, name: 'Tina Tax', roles: ['partner_admin'] });
  await t.call(null, 'POST', '/api/auth/accept-invitation', { token: user.invitation.token, password });
  const legalName = unique('Tax Partner Inc.');

  // The partner admin submits its details and the signed form in the portal.
  const portal = await t.newPage({ label: 'tax portal' });
  const page = portal.page;
  await t.signIn(page, { email, password });
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Tax details' }).click();
  await page.getByRole('heading', { level: 1, name: 'Tax details' }).waitFor();
  await page.getByText('No tax details yet').waitFor();
  await page.getByLabel(/^Legal name/).fill(legalName);
  await page.getByLabel(/^Country/).fill('US');
  await page.getByLabel(/^Form/).selectOption('w9');
  await page.getByLabel(/^Tax id/).fill('12-3456789');
  await page.getByRole('button', { name: 'Submit for review' }).click();
  const current = page.getByRole('region', { name: 'Your tax record' });
  await current.getByText('••••6789').waitFor();
  t.check(!(await page.getByText('123456789').count()) && !(await page.getByText('12-3456789').count()), 'the tax id is shown back only masked');
  await page.getByLabel('Form file', { exact: true }).setInputFiles({ name: 'w9-signed.pdf', mimeType: 'application/pdf', buffer: Buffer.from(minimalPDF) });
  await page.getByRole('button', { name: 'Upload the form' }).click();
  await current.getByText(/Signed form: w9-signed\.pdf/).waitFor();
  await t.axe(page, '[portal] tax details');
  await t.shot(page, 'portal-tax-details');

  // The owner approves it in the console.
  const op = await t.newPage({ label: 'tax console' });
  await t.signIn(op.page, t.owner);
  await op.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Tax records' }).click();
  await op.page.getByRole('heading', { level: 1, name: 'Tax records' }).waitFor();
  const approve = op.page.getByRole('button', { name: `Approve the tax record of ${legalName}` });
  await approve.waitFor();
  await t.axe(op.page, '[console] tax records');
  await approve.click();
  await op.page.getByText('Tax record approved').waitFor();
  const record = await t.call(ownerToken, 'GET', `/api/tax-records/${partner.id}`);
  t.check(record.status === 'approved' && record.taxIdMasked === '••••6789' && record.form?.contentType === 'application/pdf',
    `the record is approved with its PDF form (${record.status}, ${record.form?.contentType})`);

  // The rule: block refuses a partner without an approved record; set back to off for later specs.
  const rule = op.page.getByRole('region', { name: 'Withdrawals without an approved tax record' });
  await rule.locator('label', { hasText: /^Block$/ }).click();
  await op.page.getByRole('button', { name: 'Save the rule' }).click();
  await op.page.getByText('Tax rule saved').waitFor();
  try {
    t.check((await t.call(ownerToken, 'GET', '/api/tax-settings')).requirement === 'block', 'the rule saved is block');
    await t.call(ownerToken, 'POST', '/api/ledger/adjustments', { partnerId: other.id, currency: 'EUR', amount: 10000, reason: 'Tax spec: opening credit' },
      { 'Idempotency-Key': crypto.randomUUID() });
    const method = await t.call(ownerToken, 'POST', '/api/payout-methods', { partnerId: other.id, kind: 'paypal', details: { email: 'untaxed@example.com' } });
    const res = await fetch(`${t.base}/api/withdrawals`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${ownerToken}`, 'Content-Type': 'application/json', 'Idempotency-Key': crypto.randomUUID() },
      body: JSON.stringify({ partnerId: other.id, amount: 1000, currency: 'EUR', payoutMethodId: method.id }),
    });
    const problem = await res.json();
    t.check(res.status === 403 && problem.code === 'TAX_RECORD_REQUIRED', `a withdrawal without an approved tax record is refused (${res.status} ${problem.code})`);
  } finally {
    await t.call(ownerToken, 'PUT', '/api/tax-settings', { requirement: 'off' });
  }

  // The year's payout totals download as CSV.
  const [download] = await Promise.all([op.page.waitForEvent('download'), op.page.getByRole('button', { name: 'Export CSV' }).click()]);
  const year = new Date().getUTCFullYear();
  t.check(download.suggestedFilename() === `payout-totals-${year}.csv`, `the export is named payout-totals-${year}.csv (${download.suggestedFilename()})`);
  await t.shot(op.page, 'console-tax-records');
}
