// The partner portal, as a partner admin: registering a deal (an invalid form first, its errors
// beside the fields), following it, adding a note and changing its value, adding a payout method
// (its details never shown back), requesting a withdrawal (the API then holds the exact minor
// amount) and cancelling it, inviting and renaming a colleague on the team page, adding a
// customer; the deals list and the registration form on a phone without sideways scrolling; the
// API refusing the partner another partner's organisation.
import { unique } from '../lib.mjs';

export const title = 'partner portal: register a deal, payout method, withdrawal, phone layout, scoping';

/** The texts an input's aria-describedby points at: its description and its error. */
async function describedBy(page, input) {
  const ids = ((await input.getAttribute('aria-describedby')) ?? '').split(/\s+/).filter(Boolean);
  const texts = [];
  for (const id of ids) texts.push(await page.locator(`[id="${id}"]`).innerText().catch(() => ''));
  return texts.join(' | ');
}

/** Waits until the input is marked invalid and returns the error shown beside it. */
async function fieldError(page, input) {
  await input.and(page.locator('[aria-invalid="true"]')).waitFor({ timeout: 5000 });
  return describedBy(page, input);
}

const noSideways = (page) => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

export default async function (t) {
  // A partner with a partner admin, and another partner whose data must stay out of reach.
  const ownerToken = await t.token(t.owner);
  const partner = await t.call(ownerToken, 'POST', '/api/partners', { name: unique('Portal Partner'), type: 'reseller' });
  const other = await t.call(ownerToken, 'POST', '/api/partners', { name: unique('Other Partner'), type: 'reseller' });
  const email = `${unique('portal').replace(/\s+/g, '-').toLowerCase()}@partner.test`;
  const password = 'portal-pass-' + Math.random().toString(36).slice(2);
  const user = await t.call(ownerToken, 'POST', `/api/partners/${partner.id}/users`, { email, name: 'Paula Partner', roles: ['partner_admin'] });
  const partnerToken = (await t.call(null, 'POST', '/api/auth/accept-invitation', { token: user.invitation.token, password })).accessToken;

  // Finance credits 500.00 EUR to the partner's available balance.
  await t.call(ownerToken, 'POST', '/api/ledger/adjustments',
    { partnerId: partner.id, currency: 'EUR', amount: 50000, reason: 'Portal spec: opening credit' },
    { 'Idempotency-Key': crypto.randomUUID() });

  // The partner's token reaches its own organisation only.
  const own = await fetch(`${t.base}/api/partners/${partner.id}`, { headers: { Authorization: `Bearer ${partnerToken}` } });
  const foreign = await fetch(`${t.base}/api/partners/${other.id}`, { headers: { Authorization: `Bearer ${partnerToken}` } });
  t.check(own.status === 200 && [403, 404].includes(foreign.status),
    `a partner reads its own organisation (${own.status}) and is refused another partner's (${foreign.status})`);
  const foreignDeals = await fetch(`${t.base}/api/deals?partnerId=${other.id}`, { headers: { Authorization: `Bearer ${partnerToken}` } });
  const foreignRows = foreignDeals.ok ? (await foreignDeals.json()).data : [];
  t.check(!foreignDeals.ok || foreignRows.every((d) => d.partnerId === partner.id),
    `asking for another partner's deals gives none of them (${foreignDeals.status}, ${foreignRows.length} row(s))`);

  const { page, context } = await t.newPage({ label: 'portal flows' });
  await t.signIn(page, { email, password });
  t.check(new URL(page.url()).pathname === '/portal', 'the partner admin lands on the portal');
  const balances = page.getByRole('table', { name: 'Balances' });
  await balances.getByText(/500[.,]00/).first().waitFor();
  t.check(true, 'the dashboard shows the credited 500.00 EUR balance');
  await t.shot(page, 'portal-flow-dashboard');

  // Register a deal: an invalid form first.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Deals' }).click();
  await page.getByRole('heading', { level: 1, name: 'Deals' }).waitFor();
  await page.getByRole('link', { name: 'Register a deal' }).click();
  await page.getByRole('heading', { level: 1, name: 'Register a deal' }).waitFor();
  const company = page.getByLabel('Customer company');
  const amount = page.getByLabel('Deal value');
  const contactEmail = page.getByLabel('Contact email');
  await amount.fill('1250.505');
  await contactEmail.fill('not-an-email');
  await page.getByRole('button', { name: 'Register deal' }).click();
  const companyError = await fieldError(page, company);
  const amountError = await fieldError(page, amount);
  const emailError = await fieldError(page, contactEmail);
  t.check(/customer company/i.test(companyError), `an empty company is refused beside its field: ${companyError}`);
  t.check(/decimal/i.test(amountError), `an amount with three decimals in EUR is refused beside its field: ${amountError}`);
  t.check(/email/i.test(emailError), `a malformed contact email is refused beside its field: ${emailError}`);
  t.check(new URL(page.url()).pathname === '/portal/deals/new', 'the invalid form stays on the registration page');
  await t.shot(page, 'portal-deal-invalid');

  const customer = unique('Initech');
  await company.fill(customer);
  await page.getByLabel('Customer web domain').fill(`${customer.split(' ')[1]}.example`);
  await page.getByLabel('Contact name').fill('Bill Lumbergh');
  await contactEmail.fill('bill@initech.example');
  await amount.fill('1,250.50');
  await page.getByLabel('Currency').selectOption('EUR');
  await page.getByLabel('Notes').fill('Needs 40 seats before the end of the quarter.');
  await page.getByRole('button', { name: 'Register deal' }).click();
  await page.getByRole('heading', { level: 1, name: customer }).waitFor();
  const dealId = new URL(page.url()).pathname.split('/').pop();
  const deal = await t.call(partnerToken, 'GET', `/api/deals/${dealId}`);
  t.check(deal.amountMinor === 125050 && deal.currency === 'EUR' && deal.partnerId === partner.id && deal.contactEmail === 'bill@initech.example',
    `the registered deal holds 125050 EUR minor units for the partner (${deal.amountMinor} ${deal.currency})`);
  t.check(await page.getByText('submitted', { exact: true }).first().isVisible(), 'the deal page shows it submitted');

  // A note lands on the deal's timeline.
  const note = `Call booked ${Date.now()}`;
  await page.getByLabel('Add a note').fill(note);
  await page.getByRole('button', { name: 'Add note' }).click();
  await page.getByRole('table', { name: 'Timeline' }).getByText(note).waitFor();
  t.check(true, 'a note added on the deal page shows in its timeline');

  // While it is open, the deal's details change.
  await page.getByRole('button', { name: 'Edit details' }).click();
  const editDeal = page.getByRole('dialog', { name: `Edit ${customer}` });
  await editDeal.getByLabel(/^Deal value/).fill('1300');
  await editDeal.getByLabel('Contact name').fill('Bill Lumbergh Jr.');
  await editDeal.getByRole('button', { name: 'Save details' }).click();
  await editDeal.waitFor({ state: 'detached' });
  const changed = await t.call(partnerToken, 'GET', `/api/deals/${dealId}`);
  t.check(changed.amountMinor === 130000 && changed.contactName === 'Bill Lumbergh Jr.',
    `editing the deal's details reaches the API (${changed.amountMinor} ${changed.currency}, ${String(changed.contactName)})`);
  await t.shot(page, 'portal-deal');

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Deals' }).click();
  await page.getByRole('table', { name: 'Deals' }).getByRole('link', { name: customer }).waitFor();
  t.check(true, 'the new deal is listed in my deals');
  await page.getByLabel('Status').selectOption('won');
  await page.getByRole('table', { name: 'Deals' }).getByText('No deals match these filters.').waitFor();
  t.check(true, 'filtering my deals by status won hides the submitted deal');

  // A payout method: its IBAN is sent, only a masked hint comes back.
  const iban = 'DE89370400440532013000';
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Payout methods' }).click();
  await page.getByRole('heading', { level: 1, name: 'Payout methods' }).waitFor();
  await page.getByRole('button', { name: 'Add payout method' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Name', { exact: true }).fill('Main account');
  await dialog.getByLabel('Account holder').fill('Paula Partner');
  await dialog.getByRole('button', { name: 'Add payout method' }).click();
  const ibanError = await fieldError(page, dialog.getByLabel('IBAN'));
  t.check(/IBAN/.test(ibanError), `a bank method without IBAN or account number is refused beside the IBAN: ${ibanError}`);
  await dialog.getByLabel('IBAN').fill(iban);
  await dialog.getByRole('button', { name: 'Add payout method' }).click();
  await dialog.waitFor({ state: 'hidden' });
  const methods = page.getByRole('table', { name: 'Payout methods' });
  await methods.getByText('Main account').waitFor();
  const shown = await methods.innerText();
  t.check(/3000/.test(shown) && !shown.includes(iban) && !shown.includes('0532013'), `the method is listed masked, never with its IBAN: ${shown.replace(/\s+/g, ' ').slice(-80)}`);
  await t.shot(page, 'portal-payout-methods');

  // A withdrawal: more than available is refused beside the amount, then 123.45 EUR is held.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Money' }).click();
  await page.getByRole('heading', { level: 1, name: 'Money' }).waitFor();
  await page.getByRole('button', { name: 'Request a withdrawal' }).click();
  const request = page.getByRole('dialog', { name: 'Request a withdrawal' });
  const withdrawAmount = request.getByLabel('Amount');
  await withdrawAmount.fill('600');
  await request.getByRole('button', { name: 'Request withdrawal' }).click();
  const tooMuch = await fieldError(page, withdrawAmount);
  t.check(/available balance/i.test(tooMuch) && /500[.,]00/.test(tooMuch), `more than the available balance is refused, saying how much is available: ${tooMuch}`);
  await withdrawAmount.fill('123.45');
  t.check((await request.getByLabel('Pay to').locator('option:checked').innerText()).includes('Main account'), 'the new payout method is offered');
  await request.getByRole('button', { name: 'Request withdrawal' }).click();
  await request.waitFor({ state: 'hidden' });
  const withdrawals = await t.call(partnerToken, 'GET', '/api/withdrawals');
  const held = withdrawals.data.find((w) => w.amount === 12345);
  t.check(held?.status === 'requested' && held.currency === 'EUR' && held.partnerId === partner.id,
    `the API holds a requested withdrawal of exactly 12345 EUR minor units (${JSON.stringify(withdrawals.data.map((w) => [w.amount, w.currency, w.status]))})`);
  const row = page.getByRole('table', { name: 'Withdrawals' }).getByRole('row').filter({ hasText: /123[.,]45/ });
  await row.getByText('requested').waitFor();
  t.check(true, 'the withdrawal is listed as requested');
  await balances.getByText(/376[.,]55/).first().waitFor();
  t.check(true, 'the available balance drops to 376.55 EUR');
  await t.shot(page, 'portal-money');

  // Cancelling it returns the amount.
  await row.getByRole('button', { name: /^Cancel withdrawal/ }).click();
  await page.getByRole('dialog', { name: 'Cancel this withdrawal?' }).getByRole('button', { name: 'Cancel withdrawal' }).click();
  await page.getByRole('table', { name: 'Withdrawals' }).getByRole('row').filter({ hasText: /123[.,]45/ }).getByText('cancelled').waitFor();
  const cancelled = await t.call(partnerToken, 'GET', `/api/withdrawals/${held?.id}`);
  t.check(cancelled.status === 'cancelled', `a cancelled withdrawal is cancelled in the API (${cancelled.status})`);

  // The statement's CSV comes through the API with the partner's token.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
  const csv = await download.path().then((p) => import('node:fs').then((fs) => fs.readFileSync(p, 'utf8')));
  t.check(/12345|123\.45/.test(csv) && /50000|500\.00/.test(csv), `the statement CSV downloads with this month's entries (${csv.split('\n').length} lines)`);

  // The team page: the admin invites a colleague (the link shown once) and renames them; their own row has no actions.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Team' }).click();
  await page.getByRole('heading', { level: 1, name: 'Team' }).waitFor();
  const team = page.getByRole('table', { name: `Users of ${partner.name}` });
  await team.getByText(email).waitFor();
  t.check(await team.getByRole('button', { name: 'Edit Paula Partner' }).count() === 0, 'the admin\'s own row offers no edit, reset or deactivation');
  const colleague = `${unique('colleague').replace(/\s+/g, '-').toLowerCase()}@partner.test`;
  await page.getByRole('button', { name: 'Add user' }).click();
  const invite = page.getByRole('dialog', { name: `Add a user to ${partner.name}` });
  await invite.getByRole('textbox', { name: 'Name' }).fill('Pete Colleague');
  await invite.getByRole('textbox', { name: 'Email' }).fill(colleague);
  await invite.getByRole('button', { name: 'Add and invite' }).click();
  const once = page.getByTestId('secret-once');
  await once.waitFor();
  t.check((await once.innerText()).includes('/accept-invitation#token='), 'inviting a colleague shows their invitation link once');
  await page.getByRole('button', { name: 'I have stored it' }).click();
  await once.waitFor({ state: 'detached' });
  await team.getByRole('button', { name: 'Edit Pete Colleague' }).click();
  const rename = page.getByRole('dialog', { name: 'Edit Pete Colleague' });
  await rename.getByRole('textbox', { name: 'Name' }).fill('Peter Colleague');
  await rename.getByRole('button', { name: 'Save' }).click();
  await rename.waitFor({ state: 'detached' });
  await team.getByText('Peter Colleague').waitFor();
  const people = await t.call(partnerToken, 'GET', `/api/partners/${partner.id}/users?limit=100`);
  const pete = people.data.find((u) => u.email === colleague);
  t.check(pete?.name === 'Peter Colleague' && pete.status === 'invited' && pete.roles.join() === 'partner_user',
    `the colleague is invited as a partner user and renamed in the API (${String(pete?.name)}, ${String(pete?.status)}, ${String(pete?.roles.join())})`);
  await t.axe(page, 'portal team');
  await t.shot(page, 'portal-team');

  // A customer of the partner's own.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Customers' }).click();
  await page.getByRole('heading', { level: 1, name: 'Customers' }).waitFor();
  await page.getByRole('button', { name: 'Add a customer' }).click();
  const addCustomer = page.getByRole('dialog', { name: 'Add a customer' });
  const customerName = unique('Globex');
  await addCustomer.getByLabel('Name').fill(customerName);
  await addCustomer.getByLabel('Email').fill(`${customerName.split(' ')[1]}@globex.example`);
  await addCustomer.getByRole('button', { name: 'Add customer' }).click();
  await page.getByRole('heading', { level: 1, name: customerName }).waitFor();
  const customerId = new URL(page.url()).pathname.split('/').pop();
  const added = await t.call(ownerToken, 'GET', `/api/customers/${customerId}`);
  t.check(added.name === customerName && added.partnerId === partner.id, `the customer added in the portal is the partner's (${added.name}, partner ${String(added.partnerId === partner.id)})`);
  await context.close();

  // On a phone: the deals list and the registration form fit the screen.
  const phone = await t.newPage({ label: 'portal phone', viewport: { width: 390, height: 844 } });
  await t.signIn(phone.page, { email, password });
  await phone.page.goto(`${t.base}/portal/deals`);
  await phone.page.getByRole('table', { name: 'Deals' }).getByRole('link', { name: customer }).waitFor();
  const listScroll = await noSideways(phone.page);
  t.check(listScroll <= 1, `[phone] my deals have no sideways scrolling (${listScroll}px)`);
  await t.shot(phone.page, 'portal-deals-phone');
  await phone.page.goto(`${t.base}/portal/deals/new`);
  await phone.page.getByRole('heading', { level: 1, name: 'Register a deal' }).waitFor();
  const formScroll = await noSideways(phone.page);
  t.check(formScroll <= 1, `[phone] the registration form has no sideways scrolling (${formScroll}px)`);
  await t.shot(phone.page, 'portal-deal-new-phone');
  await t.axe(phone.page, '[portal-phone] register a deal');
  await phone.context.close();
}
