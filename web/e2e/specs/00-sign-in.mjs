// Signing in and out: / without a session goes to /login, a wrong password is refused, the right
// one opens the dashboard, a deep link falls back to the app, a lost session sends the person
// back to sign in; light and dark, axe on both; first contentful paint reported (budgets live in
// e2e/fcp.mjs, not in tests). Self-service sign-up: offered on the sign-in page while the
// installation's sign-up is open, a taken address refused beside its field, a new program opened
// with its owner signed in to its console.
import { unique } from '../lib.mjs';

export const title = 'sign in, sign out, expired session, deep links, sign-up';

/** Waits until the input is marked invalid and returns the texts its aria-describedby points at. */
async function fieldError(page, input) {
  await input.and(page.locator('[aria-invalid="true"]')).waitFor({ timeout: 5000 });
  const ids = ((await input.getAttribute('aria-describedby')) ?? '').split(/\s+/).filter(Boolean);
  const texts = [];
  for (const id of ids) texts.push(await page.locator(`[id="${id}"]`).innerText().catch(() => ''));
  return texts.join(' | ');
}

/** The sign-up page, from the sign-in page's link to a program of one's own. */
async function signUp(t) {
  const installation = await t.call(null, 'GET', '/api/installation');
  const { page, context } = await t.newPage({ label: 'sign-up', expect401: true });
  await page.goto(t.base + '/login');
  await page.getByRole('heading', { name: 'Sign in to partnerd' }).waitFor();
  const link = page.getByRole('link', { name: 'Open a partner program' });
  if (!installation.signup) {
    t.check(await link.count() === 0, 'sign-up is closed on this installation: the sign-in page does not offer it');
    await context.close();
    return;
  }
  await link.click();
  await page.getByRole('heading', { level: 1, name: 'Open a partner program' }).waitFor();
  t.check(new URL(page.url()).pathname === '/signup', 'the sign-in page links to the sign-up page while sign-up is open');
  await t.axe(page, 'sign-up');

  const open = page.getByRole('button', { name: 'Open the program' });
  const programName = page.getByLabel(/^Program name/);
  const address = page.getByLabel(/^Address/);
  const password = page.getByLabel(/^Password/).and(page.locator('input'));
  await open.click();
  t.check(/name your partner program/i.test(await fieldError(page, programName)), 'an empty form is refused beside its fields');

  const name = unique('Signup Program');
  await programName.fill(name);
  const proposed = await address.inputValue();
  t.check(proposed === name.toLowerCase().replace(/[^a-z0-9]+/g, '-'), `the address follows the program's name: ${proposed}`);
  const email = `${unique('owner').replace(/\s+/g, '-').toLowerCase()}@signup.test`;
  const secret = 'signup-' + Math.random().toString(36).slice(2);
  await page.getByLabel(/^Your name/).fill('Sam Signup');
  await page.getByLabel(/^Email/).fill(email);
  await password.fill('too-short');
  await open.click();
  // Mantine's password input marks its wrapper, not the input, invalid: the message shows below it.
  await page.getByText('Use at least 12 characters', { exact: true }).waitFor();
  t.check(true, 'a short password is refused beside its field');
  await password.fill(secret);
  // The demo program's address is taken: the API's 409 lands beside the address.
  await address.fill('demo');
  await open.click();
  const taken = await fieldError(page, address);
  t.check(/another program/i.test(taken), `a taken address is refused beside its field: ${taken}`);
  await t.shot(page, 'signup-taken');

  await address.fill(proposed);
  await open.click();
  await page.getByRole('heading', { level: 1, name: /^Welcome/ }).waitFor();
  t.check(new URL(page.url()).pathname === '/', 'the new owner lands on the console');
  const token = await page.evaluate(() => sessionStorage.getItem('partnerd.accessToken'));
  const me = await t.call(token, 'GET', '/api/me');
  t.check(me.tenant.slug === proposed && me.tenant.name === name && me.roles.includes('owner') && me.email === email,
    `the program is opened with its owner signed in (${me.tenant.slug}, ${me.tenant.name}, ${me.roles.join()})`);
  await context.close();
}

export default async function (t) {
  for (const scheme of ['light', 'dark']) {
    const { page, context } = await t.newPage({ colorScheme: scheme, label: `sign-in ${scheme}`, expect401: true });
    await page.goto(t.base + '/');
    await page.getByRole('heading', { name: 'Sign in to partnerd' }).waitFor();
    t.check(new URL(page.url()).pathname === '/login', `[${scheme}] / without a session goes to /login`);
    const fcp = await page.evaluate(() => new Promise((resolve) => {
      new PerformanceObserver((l) => {
        const e = l.getEntriesByName('first-contentful-paint')[0];
        if (e) resolve(e.startTime);
      }).observe({ type: 'paint', buffered: true });
      setTimeout(() => { resolve(-1); }, 3000);
    }));
    console.log(`     [${scheme}] first contentful paint ${fcp >= 0 ? `${fcp.toFixed(0)} ms` : 'not reported'}`);
    await t.shot(page, `login-${scheme}`);
    await t.axe(page, `[${scheme}] login`);

    const passwordInput = page.getByLabel(/^Password/).and(page.locator('input'));
    await page.getByLabel(/^Email/).fill(t.owner.email);
    await passwordInput.fill('wrong-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    t.check(/password/i.test(await alert.innerText()), `[${scheme}] a wrong password is refused: ${(await alert.innerText()).replace(/\s+/g, ' ')}`);

    await passwordInput.fill(t.owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: /^Welcome/ }).waitFor();
    t.check(new URL(page.url()).pathname === '/', `[${scheme}] signed in, on the dashboard`);
    await t.shot(page, `dashboard-${scheme}`);
    await t.axe(page, `[${scheme}] dashboard`);

    await page.goto(t.base + '/no/such/page');
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    t.check(true, `[${scheme}] a deep link to no page shows the not-found page inside the app`);

    if (scheme === 'light') {
      // A session whose tokens no longer work: the next request fails to renew and the person
      // lands on the login page, told why, and returns where they were after signing in.
      await page.goto(t.base + '/');
      await page.getByRole('heading', { level: 1, name: /^Welcome/ }).waitFor();
      await page.evaluate(() => {
        sessionStorage.setItem('partnerd.accessToken', 'expired');
        sessionStorage.setItem('partnerd.refreshToken', 'revoked');
      });
      // One full load with the dead tokens: a reload after it could land on /login a second time
      // and lose the notice the first redirect showed.
      await page.goto(t.base + '/no/such/page');
      await page.getByText('Your session ended').waitFor();
      t.check(new URL(page.url()).pathname === '/login', '[light] a dead session lands on /login saying the session ended');

      await page.getByLabel(/^Email/).fill(t.owner.email);
      await passwordInput.fill(t.owner.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Page not found' }).waitFor();
      t.check(new URL(page.url()).pathname === '/no/such/page', '[light] signing in again returns to where the person was');

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { name: 'Sign in to partnerd' }).waitFor();
      await page.goto(t.base + '/');
      await page.getByRole('heading', { name: 'Sign in to partnerd' }).waitFor();
      t.check(await page.evaluate(() => sessionStorage.getItem('partnerd.refreshToken')) === null, '[light] sign out forgets the session');
    }
    await context.close();
  }
  await signUp(t);
}
