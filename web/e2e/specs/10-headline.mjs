// The headline flow, as the people who do it, in two browsers: an operator adds a partner and
// invites its first user; the partner accepts, signs in and registers a deal in the portal; the
// operator approves it and wins it on the pipeline board; the partner sees the commission the
// win accrued in its balance, the commission beside the deal it was earned on, and its progress
// toward the next level on the portal's dashboard. Then the partner asks for a withdrawal in the
// portal and finance approves it in the console, whose deals page offers finance no review view.
import { unique } from '../lib.mjs';

/** Picks an option of the Mantine select labelled `label` inside `scope`. */
async function choose(page, scope, label, option) {
  await scope.getByLabel(new RegExp(`^${label}( \\*)?$`)).and(scope.locator('input[aria-haspopup="listbox"]')).click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

const euros = (minor) => new Intl.NumberFormat('en-US', { style: 'currency', currency: 'EUR' }).format(minor / 100);

export const title = 'headline: partner invited, deal registered, approved and won on the board, commission in the balance; a withdrawal approved by finance';

export default async function (t) {
  const ownerToken = await t.token(t.owner);
  // The program pays 10 % of won deals of campus partners (the demo tenant's own plans may pay
  // on the same win: the balance is checked against all of them).
  const plan = await t.call(ownerToken, 'POST', '/api/commission-plans', {
    name: unique('Headline 10 %'),
    definition: {
      trigger: 'deal.won', amountPath: 'amountMinor', currencyPath: 'currency', currency: 'EUR', referencePath: 'dealId',
      holdingDays: 30, calculation: { kind: 'percentage', rateBps: 1000 }, conditions: { partnerTypes: ['campus'] },
    },
  });

  // The operator adds the partner and invites its first user.
  const op = await t.newPage({ label: 'headline operator' });
  await t.signIn(op.page, t.owner);
  const name = unique('Headline Campus');
  await op.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Partners' }).click();
  await op.page.getByRole('button', { name: 'New partner' }).click();
  const create = op.page.getByRole('dialog', { name: 'New partner' });
  await create.getByRole('textbox', { name: 'Name' }).fill(name);
  await choose(op.page, create, 'Type', 'Campus');
  await create.getByRole('button', { name: 'Add partner' }).click();
  await op.page.getByRole('heading', { level: 1, name }).waitFor();
  const partnerId = new URL(op.page.url()).pathname.split('/').pop();

  const email = `${unique('headline').replace(/\s+/g, '-').toLowerCase()}@campus.test`;
  await op.page.getByRole('button', { name: 'Add user' }).click();
  const add = op.page.getByRole('dialog', { name: /^Add a user/ });
  await add.getByRole('textbox', { name: 'Name' }).fill('Hana Headline');
  await add.getByRole('textbox', { name: 'Email' }).fill(email);
  // The partner's first user runs its account: the dialog offers partner admin.
  t.check(await add.getByText(/^Partner admin/).isVisible(), 'a first user is proposed as partner admin');
  await add.getByRole('button', { name: 'Add and invite' }).click();
  const link = (await op.page.getByTestId('secret-once').innerText()).trim();
  await op.page.getByRole('button', { name: 'I have stored it' }).click();
  t.check(link.includes('/accept-invitation#token='), 'the operator gets the invitation link once');

  // The partner accepts in a browser of its own and registers a deal.
  const pp = await t.newPage({ label: 'headline partner' });
  await pp.page.goto(link);
  const password = 'headline-' + Math.random().toString(36).slice(2);
  await pp.page.getByLabel(/^New password/).and(pp.page.locator('input')).fill(password);
  await pp.page.getByLabel(/^Repeat it/).and(pp.page.locator('input')).fill(password);
  await pp.page.getByRole('button', { name: 'Accept and sign in' }).click();
  await pp.page.waitForURL((u) => u.pathname === '/portal');
  await pp.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Deals' }).click();
  await pp.page.getByRole('link', { name: 'Register a deal' }).click();
  const company = unique('Headline Customer');
  await pp.page.getByLabel('Customer company').fill(company);
  await pp.page.getByLabel('Customer web domain').fill(`${company.split(' ').pop()}.example`);
  await pp.page.getByLabel('Contact name').fill('Carla Customer');
  await pp.page.getByLabel('Contact email').fill('carla@customer.example');
  await pp.page.getByLabel('Deal value').fill('12,000.00');
  await pp.page.getByLabel('Currency').selectOption('EUR');
  await pp.page.getByRole('button', { name: 'Register deal' }).click();
  await pp.page.getByRole('heading', { level: 1, name: company }).waitFor();
  const dealId = new URL(pp.page.url()).pathname.split('/').pop();
  let deal = await t.call(ownerToken, 'GET', `/api/deals/${dealId}`);
  t.check(deal.partnerId === partnerId && deal.amountMinor === 1_200_000 && deal.currency === 'EUR' && deal.status === 'submitted',
    `the partner's registration reaches the API: ${deal.status}, ${deal.amountMinor} ${deal.currency}`);

  // The operator approves it and wins it on the board.
  await op.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Deals' }).click();
  await op.page.getByRole('heading', { level: 1, name: 'Deals' }).waitFor();
  const card = op.page.locator(`[data-deal="${dealId}"]`);
  await card.getByRole('link', { name: company }).click();
  await op.page.getByRole('heading', { level: 1, name: company }).waitFor();
  await op.page.getByRole('button', { name: 'Approve' }).click();
  await op.page.getByRole('dialog', { name: 'Approve the registration' }).getByRole('button', { name: 'Approve' }).click();
  await op.page.getByText('Protected until', { exact: true }).locator('..').getByRole('time').waitFor();
  deal = await t.call(ownerToken, 'GET', `/api/deals/${dealId}`);
  t.check(deal.status === 'approved', `approved in the console: ${deal.status}`);

  const pipeline = await t.call(ownerToken, 'GET', `/api/pipelines/${deal.pipelineId}`);
  const won = pipeline.stages.find((s) => s.outcome === 'won');
  await op.page.getByRole('link', { name: '← Deals' }).click();
  await card.waitFor();
  await card.getByRole('button', { name: /^Move .* to…$/ }).click();
  await op.page.getByRole('menuitem', { name: `${won.name} (won)`, exact: true }).click();
  const wonDialog = op.page.getByRole('dialog', { name: 'Mark the deal won' });
  if (await wonDialog.isVisible().catch(() => false)) await wonDialog.getByRole('button', { name: 'Mark won' }).click();
  await op.page.getByRole('region', { name: won.name, exact: true }).locator(`[data-deal="${dealId}"]`).waitFor();
  deal = await t.call(ownerToken, 'GET', `/api/deals/${dealId}`);
  t.check(deal.status === 'won' && deal.stageId === won.id, `won on the board: ${deal.status} in ${won.name}`);
  await t.shot(op.page, 'headline-board-won');

  // The commission accrues (10 % of 12 000.00 EUR) and the partner sees it in its balance.
  const expected = 120_000;
  let accruals = { data: [] };
  for (let i = 0; i < 60 && accruals.data.length === 0; i++) {
    accruals = await t.call(ownerToken, 'GET', `/api/ledger/accruals?partnerId=${partnerId}&planId=${plan.id}`);
    if (accruals.data.length === 0) await new Promise((r) => setTimeout(r, 500));
  }
  t.check(accruals.data.length === 1 && accruals.data[0].amount === expected && accruals.data[0].currency === 'EUR',
    `the win accrued one commission of ${expected} EUR minor units: ${JSON.stringify(accruals.data.map((a) => [a.amount, a.currency, a.status]))}`);
  await pp.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Money' }).click();
  await pp.page.getByRole('heading', { level: 1, name: 'Money' }).waitFor();
  const balances = pp.page.getByRole('table', { name: 'Balances' });
  const all = await t.call(ownerToken, 'GET', `/api/ledger/accruals?partnerId=${partnerId}&currency=EUR`);
  const total = all.data.reduce((sum, a) => sum + a.amount, 0);
  await balances.getByRole('row').filter({ hasText: 'EUR' }).getByText(euros(total)).first().waitFor();
  t.check(total >= expected, `the partner's balance shows what the win accrued, ${euros(total)} pending (this plan's ${euros(expected)} among ${all.data.length} accrual(s))`);
  await t.shot(pp.page, 'headline-partner-balance');

  // Commissions per deal: each accrual of the win beside the deal's customer, linked to the deal.
  const commissions = pp.page.getByRole('table', { name: 'Commissions' });
  const ofDeal = commissions.getByRole('row').filter({ has: pp.page.getByRole('link', { name: company }) });
  await ofDeal.filter({ hasText: euros(expected) }).first().waitFor();
  const dealAccruals = all.data.filter((a) => a.reference === dealId);
  t.check(await ofDeal.count() === dealAccruals.length,
    `the money page lists the win's ${dealAccruals.length} commission(s) beside its deal, ${euros(expected)} among them`);
  t.check(/pending/i.test(await ofDeal.filter({ hasText: euros(expected) }).first().innerText()), 'the commission shows pending while it is held back');
  await t.shot(pp.page, 'headline-partner-commissions');
  await ofDeal.first().getByRole('link', { name: company }).click();
  await pp.page.getByRole('heading', { level: 1, name: company }).waitFor();
  t.check(new URL(pp.page.url()).pathname === `/portal/deals/${dealId}`, 'a commission links to the deal it was earned on');

  // Progress toward the next level: the win counts toward it on the dashboard.
  const levels = (await t.call(ownerToken, 'GET', '/api/levels?limit=100')).data.sort((a, b) => a.rank - b.rank);
  const holder = await t.call(ownerToken, 'GET', `/api/partners/${partnerId}`);
  const here = levels.find((l) => l.name === holder.level);
  const next = levels.find((l) => !here || l.rank > here.rank);
  const evaluation = await t.call(ownerToken, 'GET', `/api/partners/${partnerId}/level-evaluation`);
  await pp.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dashboard' }).click();
  // The page shown again reads the evaluation afresh (the win came from another session).
  await pp.page.reload();
  const levelCard = pp.page.getByRole('region', { name: 'Your level' });
  await levelCard.getByText(/^Evaluates to/).waitFor();
  if (next) {
    await levelCard.getByRole('heading', { name: `Progress toward ${next.name}` }).waitFor();
    const bars = [];
    if (next.requirements.minWonDeals) bars.push(`Won deals: ${evaluation.wonDeals} of ${next.requirements.minWonDeals}`);
    if (next.requirements.minWonAmountMinor && next.requirements.currency === 'EUR') {
      bars.push(`Won volume in EUR: ${euros(evaluation.wonAmountMinor.EUR ?? 0)} of ${euros(next.requirements.minWonAmountMinor)}`);
    }
    for (const name of bars) await levelCard.getByRole('progressbar', { name }).waitFor();
    t.check(evaluation.wonDeals >= 1 && (evaluation.wonAmountMinor.EUR ?? 0) >= 1_200_000,
      `the dashboard shows progress from ${holder.level || 'no level'} toward ${next.name}: ${bars.join('; ') || 'no requirement'}`);
  } else {
    await levelCard.getByText(/is the highest level/).waitFor();
    t.check(true, `the dashboard says ${holder.level} is the highest level`);
  }
  await t.axe(pp.page, 'portal dashboard with the level card');
  await t.shot(pp.page, 'headline-partner-level');

  // A withdrawal: the accrual is still held, so the program credits an available amount; the
  // partner adds a payout method and asks for 80.00 EUR; finance approves it.
  await t.call(ownerToken, 'POST', '/api/ledger/adjustments',
    { partnerId, currency: 'EUR', amount: 10_000, reason: 'Headline spec: available credit' },
    { 'Idempotency-Key': crypto.randomUUID() });
  await pp.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Payout methods' }).click();
  await pp.page.getByRole('button', { name: 'Add payout method' }).click();
  const method = pp.page.getByRole('dialog');
  await method.getByLabel('Name', { exact: true }).fill('Campus account');
  await method.getByLabel('Account holder').fill('Headline Campus');
  await method.getByLabel('IBAN').fill('DE89370400440532013000');
  await method.getByRole('button', { name: 'Add payout method' }).click();
  await pp.page.getByRole('table', { name: 'Payout methods' }).getByText('Campus account').waitFor();
  await pp.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Money' }).click();
  await pp.page.getByRole('button', { name: 'Request a withdrawal' }).click();
  const request = pp.page.getByRole('dialog', { name: 'Request a withdrawal' });
  await request.getByLabel('Amount').fill('80');
  await request.getByRole('button', { name: 'Request withdrawal' }).click();
  await request.waitFor({ state: 'detached' });
  let withdrawals = await t.call(ownerToken, 'GET', `/api/withdrawals?partnerId=${partnerId}`);
  t.check(withdrawals.data.length === 1 && withdrawals.data[0].amount === 8_000 && withdrawals.data[0].status === 'requested',
    `the portal's request is in the API: ${JSON.stringify(withdrawals.data.map((w) => [w.amount, w.status]))}`);
  const withdrawalId = withdrawals.data[0].id;

  // Finance: an operator holding only the built-in finance role, in a browser of their own.
  const financeEmail = `finance-${Date.now().toString(36)}@headline.example`;
  const financePassword = 'finance-' + Math.random().toString(36).slice(2);
  const financeUser = await t.call(ownerToken, 'POST', '/api/users', { email: financeEmail, name: 'Fiona Finance', roles: ['finance'] });
  await t.call(null, 'POST', '/api/auth/accept-invitation', { token: financeUser.invitation.token, password: financePassword });
  const fin = await t.newPage({ label: 'headline finance' });
  await t.signIn(fin.page, { email: financeEmail, password: financePassword });
  const finMenu = fin.page.getByRole('navigation', { name: 'Main' });
  await finMenu.getByRole('link', { name: 'Withdrawals' }).waitFor();
  t.check(await finMenu.getByRole('link', { name: 'Roles' }).count() === 0 && await finMenu.getByRole('link', { name: 'Webhooks' }).count() === 0,
    'the finance user\'s menu holds Withdrawals but neither Roles nor Webhooks');
  await finMenu.getByRole('link', { name: 'Withdrawals' }).click();
  await fin.page.getByRole('heading', { level: 1, name: 'Withdrawals' }).waitFor();
  await fin.page.goto(`${t.base}/withdrawals/${withdrawalId}`);
  await fin.page.getByRole('button', { name: 'Approve', exact: true }).click();
  await fin.page.getByRole('button', { name: 'Approve and pay out' }).click();
  await fin.page.getByTestId('payout').waitFor();
  withdrawals = await t.call(ownerToken, 'GET', `/api/withdrawals/${withdrawalId}`);
  t.check(['approved', 'paid'].includes(withdrawals.status) && withdrawals.reviewedBy === financeUser.id,
    `the finance user approved it in the console: ${withdrawals.status}, reviewed by finance: ${String(withdrawals.reviewedBy === financeUser.id)}, payout ${withdrawals.payout?.status ?? 'none'}`);
  await t.shot(fin.page, 'headline-finance-approved');
  // Finance reads deals but does not review them: no review view, even asked for by address.
  await fin.page.goto(`${t.base}/deals?view=review`);
  await fin.page.getByRole('heading', { level: 1, name: 'Deals' }).waitFor();
  await fin.page.getByRole('tab', { name: 'List' }).waitFor();
  t.check(await fin.page.getByRole('tab', { name: 'Review' }).count() === 0 && await fin.page.getByRole('button', { name: /^Review / }).count() === 0,
    'the finance user\'s deals page has no review view and no review buttons');
  await fin.context.close();
  await pp.page.reload();
  await pp.page.getByRole('heading', { level: 1, name: 'Money' }).waitFor();
  const row = pp.page.getByRole('row').filter({ hasText: euros(8_000) }).filter({ hasText: /approved|paid/i });
  await row.first().waitFor();
  t.check(true, `the partner sees its withdrawal approved: ${(await row.first().innerText()).replace(/\s+/g, ' ')}`);
  await t.shot(pp.page, 'headline-partner-withdrawal');
  await pp.context.close();
  await op.context.close();
}
