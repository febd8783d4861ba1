// Market development funds. The owner allocates a fund to a partner in the console; the partner's
// admin asks for part of it in the portal; the owner asks for changes, the partner submits again,
// the owner approves a lesser amount; the partner files a claim with a proof link and uploads a
// proof file; the owner approves the claim, which is reimbursed into the partner's MDF balance
// (apart from commissions) and withdrawn with account=mdf. A second claim influences a won deal; the
// owner defines the fund's return as an MDF ROI metric in the metric form and computes it: the
// fund's roiBps, shown as a multiple. Every page passes axe.
import { unique } from '../lib.mjs';

export const title = 'market development funds: allocate in the console, request, resubmit and claim with proof in the portal, approve and reimburse';

const minimalPDF = '%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n';

export default async function (t) {
  const ownerToken = await t.token(t.owner);
  const partnerName = unique('MDF Partner');
  const partner = await t.call(ownerToken, 'POST', '/api/partners', { name: partnerName, type: 'reseller' });
  const email = `${unique('mdf').replace(/\s+/g, '-').toLowerCase()}@partner.test`;
  const password = 'mdf-pass-' + Math.random().toString(36).slice(2);
  const user = await t.call(ownerToken, 'POST', `/api/partners/${partner.id}/users`, { email, name: 'Mia Marketing', roles: ['partner_admin'] });
  await t.call(null, 'POST', '/api/auth/accept-invitation', { token: user.invitation.token, password });
  const partnerToken = await t.token({ email, password });
  const fundName = unique('Q1 co-marketing');
  const activity = unique('Webinar series');
  const changed = `${activity}, three dates`;

  // The owner allocates 5 000.00 EUR to the partner.
  const op = await t.newPage({ label: 'mdf console' });
  const console_ = op.page;
  await t.signIn(console_, t.owner);
  await console_.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Market development funds' }).click();
  await console_.getByRole('heading', { level: 1, name: 'Market development funds' }).waitFor();
  await console_.getByRole('button', { name: 'Allocate a fund' }).click();
  const allocate = console_.getByRole('dialog', { name: 'Allocate a fund' });
  await allocate.getByLabel(/^Name/).fill(fundName);
  await allocate.getByRole('combobox', { name: 'Partner' }).fill(partnerName);
  await console_.getByRole('option', { name: partnerName }).click();
  await allocate.getByLabel(/^Amount/).fill('5000.00');
  await t.axe(console_, '[console] allocate a fund');
  await allocate.getByRole('button', { name: 'Allocate' }).click();
  await console_.getByText('Fund allocated').waitFor();
  const funds = await t.call(ownerToken, 'GET', `/api/mdf/funds?partnerId=${partner.id}`);
  const fund = funds.data[0];
  t.check(funds.data.length === 1 && fund.allocated === 500000 && fund.currency === 'EUR' && fund.status === 'open',
    `the fund is allocated: ${fund?.allocated} ${fund?.currency} ${fund?.status}`);

  // The partner asks for 1 200.00 of it.
  const portal = await t.newPage({ label: 'mdf portal' });
  const page = portal.page;
  await t.signIn(page, { email, password });
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Marketing funds' }).click();
  await page.getByRole('heading', { level: 1, name: 'Marketing funds' }).waitFor();
  await page.getByRole('article', { name: fundName }).waitFor();
  await page.getByRole('button', { name: 'Request funds' }).click();
  const ask = page.getByRole('dialog', { name: 'Request funds' });
  await ask.getByLabel(/^Activity/).fill(activity);
  await ask.getByLabel(/^Budget/).fill('1200.00');
  await ask.getByLabel(/^Expected pipeline/).fill('20000');
  await t.axe(page, '[portal] request funds');
  await ask.getByRole('button', { name: 'Submit the request' }).click();
  await page.getByText('Request submitted').first().waitFor();

  // The owner asks for changes; the partner changes and submits again.
  await console_.reload();
  await console_.getByRole('button', { name: `Ask for changes to ${activity}` }).click();
  const back = console_.getByRole('dialog', { name: 'Ask for changes' });
  await back.getByLabel(/^What to change/).fill('Name the three webinar dates.');
  await back.getByRole('button', { name: 'Send back' }).click();
  await console_.getByText('Changes asked for').waitFor();
  await page.reload();
  await page.getByRole('button', { name: `Change ${activity}` }).click();
  const change = page.getByRole('dialog', { name: 'Change the request' });
  await change.getByText('Name the three webinar dates.').waitFor();
  await change.getByLabel(/^Activity/).fill(changed);
  await change.getByLabel(/^Budget/).fill('1000.00');
  await change.getByRole('button', { name: 'Submit again' }).click();
  await page.getByText('Request submitted again').waitFor();

  // The owner approves 800.00 of the 1 000.00 asked.
  await console_.reload();
  await console_.getByRole('button', { name: `Approve the request ${changed}` }).click();
  const approve = console_.getByRole('dialog', { name: 'Approve the fund request' });
  await approve.getByLabel(/^Amount to commit/).fill('800.00');
  await approve.getByRole('button', { name: 'Approve' }).click();
  await console_.getByText('Request approved').waitFor();
  const requests = await t.call(partnerToken, 'GET', `/api/mdf/requests?fundId=${fund.id}`);
  const request = requests.data[0];
  t.check(request?.status === 'approved' && request.approved === 80000 && request.budget === 100000,
    `the request is approved for a lesser amount (${request?.status} ${request?.approved} of ${request?.budget})`);

  // The partner claims 650.00 with a link, then uploads a proof file.
  await page.reload();
  await page.getByRole('button', { name: `Claim for ${changed}` }).click();
  const claimDialog = page.getByRole('dialog', { name: 'File a claim' });
  await claimDialog.getByLabel(/^Amount/).fill('650.00');
  await claimDialog.getByLabel(/^Leads/).fill('12');
  await claimDialog.getByLabel(/^Proof links/).fill('https://example.com/webinar-recordings');
  await claimDialog.getByRole('button', { name: 'File the claim' }).click();
  await page.getByText(/Claim filed/).waitFor();
  await page.getByRole('button', { name: 'Upload proof for the claim of 650.00 EUR' }).click();
  const upload = page.getByRole('dialog', { name: 'Upload proof' });
  await upload.getByLabel('Proof file', { exact: true }).setInputFiles({ name: 'invoice.pdf', mimeType: 'application/pdf', buffer: Buffer.from(minimalPDF) });
  await upload.getByRole('button', { name: 'Upload' }).click();
  await page.getByText('Proof uploaded').waitFor();
  await page.getByRole('region', { name: 'Your claims' }).getByText('1 file, 1 link').waitFor();
  await t.axe(page, '[portal] marketing funds');
  await t.shot(page, 'portal-mdf');

  // Four eyes above 1 000.00: this claim of 650.00 needs one approver. The rule is set back after.
  await console_.reload();
  const fourEyes = console_.getByRole('region', { name: 'Four eyes on claims' });
  await fourEyes.getByLabel(/^Above/).fill('100000');
  await fourEyes.getByRole('button', { name: 'Save the rule' }).click();
  await console_.getByText('Four-eyes rule saved').waitFor();
  t.check((await t.call(ownerToken, 'GET', '/api/mdf/settings')).fourEyesAbove === 100000, 'the four-eyes amount is saved');

  // The owner approves the claim: it is spent and reimbursed into the MDF balance.
  const approveClaim = console_.getByRole('button', { name: 'Approve the claim of 650.00 EUR' });
  await approveClaim.waitFor();
  await console_.getByRole('button', { name: 'Download invoice.pdf' }).waitFor();
  await t.axe(console_, '[console] market development funds');
  await approveClaim.click();
  await console_.getByText('Claim approved and reimbursed').waitFor();
  await t.call(ownerToken, 'PUT', '/api/mdf/settings', {});
  await t.shot(console_, 'console-mdf');
  const after = await t.call(ownerToken, 'GET', `/api/mdf/funds/${fund.id}`);
  t.check(after.committed === 80000 && after.spent === 65000 && after.uncommitted === 420000 && after.roiBps === 0,
    `the fund has committed ${after.committed}, spent ${after.spent}, ${after.uncommitted} left, ROI ${after.roiBps}`);
  const [balance] = (await t.call(partnerToken, 'GET', '/api/ledger/balances?currency=EUR')).data;
  t.check(balance?.mdfAvailable === 65000 && balance.available === 0, `the MDF balance holds the claim, apart from commissions (${balance?.mdfAvailable}, ${balance?.available})`);

  // The portal shows the MDF balance; the partner withdraws it on the Money page, drawing on the MDF balance.
  await page.reload();
  await page.getByText('Your MDF balance', { exact: true }).waitFor();
  await t.call(partnerToken, 'POST', '/api/payout-methods', { kind: 'paypal', label: 'MDF PayPal', details: { email: 'mdf@example.com' } });
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Money' }).click();
  await page.getByRole('button', { name: 'Request a withdrawal' }).click();
  const withdraw = page.getByRole('dialog', { name: 'Request a withdrawal' });
  await withdraw.getByLabel(/^Draw on/).selectOption('mdf');
  await withdraw.getByText('€650.00').waitFor();
  await withdraw.getByLabel(/^Amount/).fill('650.00');
  await t.axe(page, '[portal] withdraw the MDF balance');
  await withdraw.getByRole('button', { name: 'Request withdrawal' }).click();
  await page.getByText('Withdrawal requested').waitFor();
  const withdrawals = await t.call(partnerToken, 'GET', '/api/withdrawals?account=mdf');
  const w = withdrawals.data[0];
  t.check(withdrawals.data.length === 1 && w.amount === 65000 && w.status === 'requested',
    `the MDF balance is withdrawn on its own (${w?.account} ${w?.amount} ${w?.status})`);
  const [held] = (await t.call(partnerToken, 'GET', '/api/ledger/balances?currency=EUR')).data;
  t.check(held?.mdfHeld === 65000 && held.mdfAvailable === 0 && held.held === 0, `the MDF withdrawal holds the MDF balance only (${held?.mdfHeld}, ${held?.held})`);

  // A second claim of 150.00 influences a deal won for 1 880.00: the fund spent 800.00 for 1 880.00 won, 2.35×.
  const dealDomain = `${unique('mdf-deal').replace(/\s+/g, '-').toLowerCase()}.example`;
  const won = await t.call(partnerToken, 'POST', '/api/deals', { customerCompany: unique('Hooli'), customerDomain: dealDomain, contactEmail: `gavin@${dealDomain}`, amountMinor: 188000, currency: 'EUR' });
  await t.call(ownerToken, 'POST', `/api/deals/${won.id}/approve`, {});
  const pipeline = (await t.call(ownerToken, 'GET', '/api/pipelines?limit=100')).data.find((p) => p.id === won.pipelineId);
  await t.call(ownerToken, 'POST', `/api/deals/${won.id}/move`, { stageId: pipeline.stages.find((s) => s.outcome === 'won').id });
  const second = await t.call(partnerToken, 'POST', '/api/mdf/claims', { requestId: request.id, amount: 15000, dealIds: [won.id], links: ['https://example.com/roadshow'] });
  await t.call(ownerToken, 'POST', `/api/mdf/claims/${second.id}/approve`);
  const returned = await t.call(ownerToken, 'GET', `/api/mdf/funds/${fund.id}`);
  t.check(returned.spent === 80000 && returned.influencedRevenue === 188000 && returned.roiBps === 23500, `the fund's ROI is ${returned.roiBps} bps`);

  // The owner defines the fund's MDF ROI in the metric form (the fund gives its currency) and computes it.
  const roiName = unique('Co-marketing ROI');
  await console_.goto(t.base + '/metrics');
  await console_.getByRole('heading', { level: 1, name: 'Metrics' }).waitFor();
  await console_.getByRole('button', { name: 'Define metric' }).click();
  const define = console_.getByRole('dialog', { name: 'Define a metric' });
  await define.getByLabel(/^Name/).fill(roiName);
  await define.getByText('MDF ROI', { exact: true }).click();
  await define.getByTestId('roi-kind-help').waitFor();
  await define.getByRole('combobox', { name: /^Fund/ }).fill(fundName);
  await console_.getByRole('option', { name: new RegExp(fundName) }).click();
  t.check(await define.getByRole('combobox', { name: /^Currency/ }).inputValue() === 'EUR', 'the fund gives the ROI its currency');
  await t.axe(console_, '[console] metric form, MDF ROI');
  await define.getByRole('button', { name: 'Define metric' }).click();
  await console_.getByRole('heading', { level: 1, name: roiName }).waitFor();
  await console_.getByTestId('metric-fund').getByText(fundName).waitFor();
  await console_.getByRole('button', { name: 'Compute' }).click();
  const result = console_.getByTestId('metric-result');
  await result.waitFor();
  const shown = await result.getByLabel('Value', { exact: true }).innerText();
  const basis = await result.getByTestId('metric-roi-basis').innerText();
  t.check(shown === '2.35×' && basis.includes('1,880.00') && basis.includes('800.00'), `the metric shows the fund's ROI: ${shown}, ${basis}`);
  await t.axe(console_, '[console] MDF ROI metric');
  const metric = (await t.call(ownerToken, 'GET', '/api/metrics?limit=100')).data.find((m) => m.name === roiName);
  const value = await t.call(ownerToken, 'GET', `/api/metrics/${metric.id}/compute`);
  t.check(metric.kind === 'mdf_roi' && metric.fundId === fund.id && value.value === returned.roiBps, `the metric's value ${value.value} is the fund's roiBps ${returned.roiBps}`);
}
