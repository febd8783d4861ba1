// Money through finance's eyes: a partner with an available balance asks to be paid; the owner
// finds the request in the withdrawal queue, approves it and confirms its manual payout, rejects
// another with a reason, and cannot approve the one they requested themselves (four-eyes). A
// plan made in the console previews the exact commission of a sample deal; the statement shows
// the partner's entries and downloads as CSV with the session's token; an adjustment booked in
// the console moves the available balance; the payout settings page lists the daily batches.
import { readFile } from 'node:fs/promises';
import { unique } from '../lib.mjs';

export const title = 'money: withdrawals under four eyes, payouts, plan preview, statement CSV, adjustment';

/** basis points of an amount in minor units, rounded half away from zero (ADR 14). */
function applyRate(minor, bps) {
  const p = BigInt(minor) * BigInt(bps);
  const q = (p < 0n ? -p : p) * 2n + 10000n;
  const r = q / 20000n;
  return Number(p < 0n ? -r : r);
}

const eur = (minor) => (minor / 100).toFixed(2); // display check only: 25000 → "250.00"

async function pick(page, label, option) {
  const input = page.getByLabel(new RegExp(`^${label}`)).and(page.locator('input:not([type=hidden])')).first();
  await input.click();
  await input.fill(option);
  await page.getByRole('option', { name: option, exact: true }).click();
}

export default async function (t) {
  const owner = await t.token(t.owner);
  const me = await t.call(owner, 'GET', '/api/me');

  // A partner with 1,000.00 EUR available, a partner admin who signed up, and their bank account.
  const partnerName = unique('Money Partner');
  const partner = await t.call(owner, 'POST', '/api/partners', { name: partnerName, type: 'reseller' });
  await t.call(owner, 'POST', '/api/ledger/adjustments',
    { partnerId: partner.id, amount: 100000, currency: 'EUR', reason: 'Opening balance for the money spec' },
    { 'Idempotency-Key': crypto.randomUUID() });
  const email = `${unique('payee').replace(/\s+/g, '-').toLowerCase()}@partner.test`;
  const password = 'payee-pass-' + Math.random().toString(36).slice(2);
  const user = await t.call(owner, 'POST', `/api/partners/${partner.id}/users`, { email, name: 'Pat Payee', roles: ['partner_admin'] });
  await t.call(null, 'POST', '/api/auth/accept-invitation', { token: user.invitation.token, password });
  const partnerToken = await t.token({ email, password });
  const method = await t.call(partnerToken, 'POST', '/api/payout-methods',
    { kind: 'bank', label: 'Main account', details: { iban: 'DE89370400440532013000', accountHolder: 'Pat Payee' } });
  const ask = (token, amount, extra = {}) => t.call(token, 'POST', '/api/withdrawals',
    { amount, currency: 'EUR', payoutMethodId: method.id, ...extra }, { 'Idempotency-Key': crypto.randomUUID() });
  const toApprove = await ask(partnerToken, 25000);
  const toReject = await ask(partnerToken, 10000);
  const ownRequest = await ask(owner, 5000, { partnerId: partner.id });

  const { page, context } = await t.newPage({ label: 'money' });
  await t.signIn(page, t.owner);

  // The queue: requested withdrawals, filtered to the partner.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Withdrawals' }).click();
  await page.getByRole('heading', { level: 1, name: 'Withdrawals' }).waitFor();
  await pick(page, 'Partner', partnerName);
  const queue = page.getByRole('table', { name: 'Withdrawals' });
  await queue.getByRole('row').filter({ hasText: eur(10000) }).waitFor();
  const queued = await queue.getByRole('row').filter({ hasText: partnerName }).count();
  t.check(queued === 3, `the queue lists the partner's 3 requested withdrawals (${queued})`);
  await t.shot(page, 'money-withdrawal-queue');

  // Approve the partner user's request and confirm its manual payout.
  await queue.getByRole('row').filter({ hasText: eur(25000) }).getByRole('link').click();
  await page.getByRole('heading', { level: 1, name: new RegExp(`Withdrawal of .*${eur(25000).replace('.', '\\.')}`) }).waitFor();
  await page.getByText('Pat Payee (partner user)').waitFor();
  await page.getByText(/^Main account · bank IBAN ••••3000$/).waitFor();
  t.check(true, 'the detail shows who requested it (the partner user) and the masked payout method');
  t.check(await page.getByTestId('four-eyes').count() === 0, 'no four-eyes warning on a request someone else made');
  await page.getByRole('button', { name: 'Approve', exact: true }).click();
  await page.getByRole('button', { name: 'Approve and pay out' }).click();
  const payout = page.getByTestId('payout');
  await payout.waitFor();
  await payout.getByText('pending').waitFor();
  t.check((await payout.innerText()).includes('Manual'), 'after approval the payout shows: manual provider, pending');
  t.check(await page.getByText('you', { exact: true }).isVisible(), 'the detail names the reviewer (you)');
  await t.shot(page, 'money-withdrawal-approved');
  await t.axe(page, 'the approved withdrawal with its payout');
  await page.getByRole('button', { name: 'Confirm payout' }).click();
  const reference = 'BANK-' + Date.now().toString(36).toUpperCase();
  await page.getByRole('textbox', { name: 'Reference' }).fill(reference);
  await page.getByRole('dialog').getByRole('button', { name: 'Confirm payout' }).click();
  await payout.getByText('paid', { exact: true }).waitFor({ timeout: 30_000 });
  const paid = await t.call(owner, 'GET', `/api/withdrawals/${toApprove.id}`);
  t.check(paid.status === 'paid' && paid.payout?.reference === reference && paid.reviewedBy === me.userId,
    `the API holds the withdrawal paid with reference ${reference}, reviewed by the owner (${paid.status}, ${paid.payout?.reference})`);
  await t.shot(page, 'money-withdrawal-paid');

  // Reject another with a reason.
  await page.goto(`${t.base}/withdrawals/${toReject.id}`);
  await page.getByRole('button', { name: 'Reject' }).click();
  await page.getByRole('textbox', { name: 'Reason' }).fill('Invoice missing for this period');
  await page.getByRole('button', { name: 'Reject withdrawal' }).click();
  // The dialog closes once the server has rejected it; a refusal stays in the dialog.
  const rejectDialog = page.getByRole('dialog', { name: 'Reject this withdrawal?' });
  await rejectDialog.waitFor({ state: 'detached', timeout: 15_000 }).catch(async () => {
    t.check(false, `the rejection dialog stayed open: ${(await rejectDialog.innerText()).replace(/\s+/g, ' ').slice(0, 300)}`);
  });
  await page.getByText('Invoice missing for this period').waitFor();
  const rejected = await t.call(owner, 'GET', `/api/withdrawals/${toReject.id}`);
  t.check(rejected.status === 'rejected' && rejected.reason === 'Invoice missing for this period',
    `the API holds the rejection and its reason (${rejected.status})`);
  t.check(await page.getByRole('button', { name: 'Approve', exact: true }).count() === 0, 'a rejected withdrawal offers no approval');

  // Four eyes: the owner requested this one, so the console says why they cannot approve it,
  // and the API refuses it too.
  await page.goto(`${t.base}/withdrawals/${ownRequest.id}`);
  await page.getByTestId('four-eyes').waitFor();
  t.check(await page.getByRole('button', { name: 'Approve', exact: true }).isDisabled(), 'four eyes: the requester sees Approve disabled, with the reason');
  const refused = await t.call(owner, 'POST', `/api/withdrawals/${ownRequest.id}/approve`).then(() => 'approved', (e) => String(e.message));
  t.check(refused.includes('403') && refused.includes('FOUR_EYES'), `four eyes: the API refuses the requester too (${refused.slice(0, 80)})`);
  await t.shot(page, 'money-four-eyes');

  // A plan made in the console previews the exact commission of a sample deal.
  const planName = unique('Resale 12.5%');
  await page.goto(`${t.base}/commissions`);
  await page.getByRole('button', { name: 'New plan' }).click();
  const editor = page.getByRole('dialog');
  await editor.getByRole('textbox', { name: 'Name' }).fill(planName);
  await editor.getByRole('textbox', { name: 'Rate (%)' }).fill('12.5');
  await editor.getByRole('textbox', { name: 'Holding days' }).fill('14');
  await editor.getByRole('button', { name: 'Create plan' }).click();
  await page.getByRole('heading', { level: 1, name: planName }).waitFor();
  const planId = new URL(page.url()).pathname.split('/').pop();
  const plan = await t.call(owner, 'GET', `/api/commission-plans/${planId}`);
  t.check(plan.definition.calculation.kind === 'percentage' && plan.definition.calculation.rateBps === 1250 && plan.definition.holdingDays === 14,
    `the plan is stored as 1250 basis points, 14 holding days (${JSON.stringify(plan.definition.calculation)})`);
  const sample = 123460; // 1,234.60 EUR: 12.5 % is 154.325, rounded half away from zero
  const expected = applyRate(sample, 1250);
  await pick(page, 'Partner', partnerName);
  await page.getByRole('textbox', { name: /^Amount/ }).fill('1234.60');
  await page.getByRole('button', { name: 'Preview', exact: true }).click();
  const cell = page.getByTestId('preview-amount');
  await cell.waitFor();
  const shown = await cell.getAttribute('data-minor');
  t.check(shown === String(expected) && (await cell.innerText()).includes(eur(expected)),
    `the preview of a 1,234.60 deal pays ${expected} minor units (${shown}, "${await cell.innerText()}")`);
  await t.shot(page, 'money-plan-preview');
  // It is archived again, with confirmation, so no other spec's won deals accrue on it.
  await page.getByRole('button', { name: 'Archive' }).click();
  await page.getByRole('button', { name: 'Archive plan' }).click();
  await page.getByText('archived', { exact: true }).waitFor();
  t.check((await t.call(owner, 'GET', `/api/commission-plans/${planId}`)).status === 'archived', 'archiving after confirmation archives the plan');

  // The statement and its CSV, downloaded with the session's token.
  await page.goto(`${t.base}/ledger?tab=statement`);
  await pick(page, 'Partner', partnerName);
  await page.getByRole('button', { name: 'Show statement' }).click();
  const entries = page.getByRole('table', { name: 'Statement entries' });
  await entries.getByRole('row').nth(1).waitFor();
  const statement = await t.call(owner, 'GET', `/api/ledger/statement?partnerId=${partner.id}&currency=EUR`);
  const rows = await entries.getByRole('row').count() - 1;
  t.check(rows === statement.entries.length && rows >= 8, `the statement lists the partner's ${statement.entries.length} entries (${rows})`);
  const closing = await page.getByRole('table', { name: 'Opening and closing balances' }).getByRole('row', { name: /Closing/ }).innerText();
  t.check(closing.includes(eur(statement.closing.paid)) && closing.includes(eur(statement.closing.available)),
    `the closing balance shows paid ${statement.closing.paid} and available ${statement.closing.available}`);
  await t.shot(page, 'money-statement');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
  const csv = await readFile(await download.path(), 'utf8');
  const lines = csv.trim().split('\n');
  t.check(lines[0].startsWith('createdAt,entryId') && statement.entries.every((e) => csv.includes(`${e.id},${e.movementId},${e.account},${e.kind},${e.amount},EUR`)),
    `the CSV (${download.suggestedFilename()}) holds every entry of the statement (${lines.length} lines)`);
  t.check(csv.includes(',adjustment,100000,EUR') && csv.includes(',payout,25000,EUR'), 'the CSV holds the opening credit and the payout');

  // An adjustment booked in the console credits the available balance.
  const before = (await t.call(owner, 'GET', `/api/ledger/balances?partnerId=${partner.id}&currency=EUR`)).data[0];
  await page.getByRole('tab', { name: 'Adjustment' }).click();
  await pick(page, 'Partner', partnerName);
  await page.getByRole('textbox', { name: 'Amount' }).fill('12.34');
  await page.getByRole('textbox', { name: 'Reason' }).fill('Goodwill for a late payout');
  await page.getByRole('button', { name: 'Book adjustment' }).click();
  await page.getByText('Adjustment booked').waitFor();
  const after = (await t.call(owner, 'GET', `/api/ledger/balances?partnerId=${partner.id}&currency=EUR`)).data[0];
  t.check(after.available - before.available === 1234, `the adjustment credited 1234 minor units (${after.available - before.available})`);
  await page.getByRole('tab', { name: 'Balances' }).click();
  await pick(page, 'Partner', partnerName);
  const balanceRow = page.getByRole('table', { name: 'Balances' }).getByRole('row').filter({ hasText: partnerName });
  await balanceRow.waitFor();
  t.check((await balanceRow.innerText()).includes(eur(after.available)), `the balances tab shows the new available balance ${eur(after.available)}`);
  await t.shot(page, 'money-balances');

  // A minimum withdrawal set in the payout settings holds in the API; the default returns after.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Payout settings' }).click();
  await page.getByRole('heading', { level: 1, name: 'Payout settings' }).waitFor();
  await page.getByRole('button', { name: 'Add minimum' }).click();
  await pick(page, 'Currency 1', 'EUR');
  await page.getByRole('textbox', { name: /^Minimum 1/ }).fill('20');
  await page.getByRole('button', { name: 'Save settings' }).click();
  await page.getByText('Payout settings saved').waitFor();
  const settings = await t.call(owner, 'GET', '/api/payout-settings');
  t.check(settings.minimums.EUR === 2000 && settings.provider === 'manual', `the settings hold a 20.00 EUR minimum (${JSON.stringify(settings.minimums)})`);
  const below = await ask(partnerToken, 1999).then(() => 'accepted', (e) => String(e.message));
  t.check(below.includes('422') && below.includes('minimum'), `a withdrawal below it is refused (${below.slice(0, 60)})`);
  await t.call(owner, 'PUT', '/api/payout-settings', { provider: 'manual', confirmDays: settings.confirmDays, minimums: {} });
  // The daily payout batches are listed below the settings (none while payouts are not batched).
  const batches = page.getByRole('table', { name: 'Daily payout batches' });
  const apiBatches = await t.call(owner, 'GET', '/api/payout-batches?limit=25');
  await (apiBatches.data.length ? batches.getByText(apiBatches.data[0].day).first() : batches.getByText(/^No batch yet/)).waitFor();
  t.check(true, `the payout settings page lists the daily payout batches the API holds (${apiBatches.data.length})`);
  await context.close();
}
