// Signing in and out: / without a session goes to /login, a wrong password is refused, the right
// one opens the dashboard, a deep link falls back to the app, a lost session sends the person
// back to sign in; light and dark, axe on both; first contentful paint reported (budgets live in
// e2e/fcp.mjs, not in tests).
export const title = 'sign in, sign out, expired session, deep links';

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
}
