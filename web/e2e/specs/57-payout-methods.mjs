// Payout rails. A partner admin asks to connect its Stripe account before the program set
// Stripe up and is told so; the owner sets the rails on the console's Payout settings page
// (Stripe key and webhook secret, Wise profile and token, daily batches): the secrets are
// never shown back, only that they are stored. The partner then adds a Wise method, shown
// masked. Both pages pass axe. The settings are reset at the end for later specs.
import { unique } from '../lib.mjs';

export const title = 'payout rails: Stripe onboarding refused until set up, rails settings sealed in the console, a Wise method in the portal';

export default async function (t) {
  const ownerToken = await t.token(t.owner);
  const partner = await t.call(ownerToken, 'POST', '/api/partners', { name: unique('Rails Partner'), type: 'reseller' });
  const email = `${unique('rails').replace(/\s+/g, '-').toLowerCase()}@partner.test`;
  const password = 'rails-pass-' + Math.random().toString(36).slice(2);
  const user = await t.call(ownerToken, 'POST', `/api/partners/${partner.id}/users`, { email, name: 'Rita Rails', roles: ['partner_admin'] });
  await t.call(null, 'POST', '/api/auth/accept-invitation', { token: user.invitation.token, password });
  const stripeKey = 'sk_test_spec57' + Math.random().toString(36).slice(2, 12);
  const wiseToken = 'wise-spec57-' + Math.random().toString(36).slice(2, 12);

  // Before the program set Stripe up, connecting is refused with the reason.
  const portal = await t.newPage({ label: 'rails portal' });
  const page = portal.page;
  await t.signIn(page, { email, password });
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Payout methods' }).click();
  await page.getByRole('heading', { level: 1, name: 'Payout methods' }).waitFor();
  await page.getByRole('button', { name: 'Connect with Stripe' }).click();
  await page.getByText('the tenant has not set up Stripe payouts').waitFor();

  // The owner sets the rails in the console.
  const op = await t.newPage({ label: 'rails console' });
  try {
    await t.signIn(op.page, t.owner);
    await op.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Payout settings' }).click();
    await op.page.getByRole('heading', { level: 1, name: 'Payout settings' }).waitFor();
    await op.page.getByLabel('Stripe secret key').fill(stripeKey);
    await op.page.getByLabel('Stripe webhook signing secret').fill('whsec_c3BlYzU3LXdlYmhvb2stc2VjcmV0');
    await op.page.getByLabel('Wise profile id').fill('16000001');
    await op.page.getByLabel('Wise API token').fill(wiseToken);
    await op.page.getByLabel('Batch the rails’ payouts once a day').check();
    await op.page.getByRole('button', { name: 'Save settings' }).click();
    await op.page.getByText(/^Payout settings saved/).waitFor();
    await op.page.getByText('Stored; leave empty to keep it. It is never shown.').first().waitFor();
    t.check((await op.page.getByLabel('Stripe secret key').inputValue()) === '', 'the Stripe key is not shown back');
    t.check(!(await op.page.content()).includes(stripeKey) && !(await op.page.content()).includes(wiseToken), 'no rail secret is in the page');
    const saved = await t.call(ownerToken, 'GET', '/api/payout-settings');
    t.check(saved.stripeSecretKeySet && saved.stripeWebhookSecretSet && saved.wiseTokenSet && saved.wiseProfileId === '16000001' && saved.batchDaily,
      `the rails are stored (${JSON.stringify({ stripe: saved.stripeSecretKeySet, wise: saved.wiseTokenSet, batch: saved.batchDaily })})`);
    t.check(!JSON.stringify(saved).includes(stripeKey) && !JSON.stringify(saved).includes(wiseToken), 'the API never returns a rail secret');
    await op.page.getByText(`/api/payout-webhooks/stripe/`).waitFor();
    await t.axe(op.page, '[console] payout settings with rails');
    await t.shot(op.page, 'console-payout-rails');

    // The partner adds a Wise method by its recipient id; it is shown masked.
    await page.getByRole('button', { name: 'Add payout method' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a payout method' });
    await dialog.getByLabel('Kind').selectOption('wise');
    await dialog.getByLabel('Name').fill('Wise EUR');
    await dialog.getByLabel(/^Wise recipient id/).fill('40001234');
    await dialog.getByRole('button', { name: 'Add payout method' }).click();
    await page.getByRole('cell', { name: 'Wise recipient ••••1234' }).waitFor();
    await t.axe(page, '[portal] payout methods with rails');
    await t.shot(page, 'portal-payout-methods-rails');
  } finally {
    await t.call(ownerToken, 'PUT', '/api/payout-settings', { provider: 'manual', stripeSecretKey: '', stripeWebhookSecret: '', wiseToken: '', wiseProfileId: '', batchDaily: false });
  }
}
