// Every page in the menu, for an operator (the owner) and for a partner user: it opens from the
// menu with its heading, has no serious or critical axe violation, and is photographed; the
// portal also on a phone. A partner opening a console address gets the 403 view.
import { unique } from '../lib.mjs';

async function visitMenu(t, page, face, suffix = '') {
  const nav = page.getByRole('navigation', { name: 'Main' });
  const links = nav.getByRole('link');
  await links.first().waitFor();
  const items = await links.evaluateAll((as) => as.map((a) => ({ name: a.textContent?.trim() ?? '', href: a.getAttribute('href') ?? '' })));
  t.check(items.length > 0, `[${face}] the menu lists ${items.length} page(s): ${items.map((i) => i.name).join(', ')}`);
  for (const item of items) {
    await page.goto(t.base + item.href);
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    // Let the page's data arrive (tables leave their skeleton rows).
    await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'), null, { timeout: 10_000 }).catch(() => undefined);
    const slug = item.href.replace(/^\//, '').replaceAll('/', '-') || 'home';
    await t.shot(page, `${face}-${slug}${suffix}`);
    await t.axe(page, `[${face}${suffix}] ${item.name} (${item.href})`);
  }
  return items;
}

export const title = 'every page of the console and the portal: heading, axe, screenshot; 403 view';

export default async function (t) {
  const op = await t.newPage({ label: 'console pages' });
  await t.signIn(op.page, t.owner);
  const consoleItems = await visitMenu(t, op.page, 'console');
  await op.context.close();

  // A partner user of a fresh partner.
  const ownerToken = await t.token(t.owner);
  const partner = await t.call(ownerToken, 'POST', '/api/partners', { name: unique('Pages Partner'), type: 'reseller' });
  const email = `${unique('pages').replace(/\s+/g, '-').toLowerCase()}@partner.test`;
  const password = 'portal-pass-' + Math.random().toString(36).slice(2);
  const user = await t.call(ownerToken, 'POST', `/api/partners/${partner.id}/users`, { email, name: 'Pat Portal', roles: ['partner_admin'] });
  await t.call(null, 'POST', '/api/auth/accept-invitation', { token: user.invitation.token, password });

  for (const [label, viewport] of [['', undefined], ['-phone', { width: 390, height: 844 }]]) {
    const pp = await t.newPage({ label: `portal pages${label}`, viewport });
    await t.signIn(pp.page, { email, password });
    t.check(new URL(pp.page.url()).pathname === '/portal', `[portal${label}] a partner user lands on the portal`);
    const portalItems = label ? [] : await visitMenu(t, pp.page, 'portal');
    if (label) {
      // Every page of the portal's menu on a phone: no sideways scrolling, accessible.
      await pp.page.getByRole('button', { name: 'Menu' }).click();
      const nav = pp.page.getByRole('navigation', { name: 'Main' });
      await nav.getByRole('link').first().waitFor();
      const links = await nav.getByRole('link').evaluateAll((as) => as.map((a) => ({ name: a.textContent?.trim() ?? '', href: a.getAttribute('href') ?? '' })));
      const wide = [];
      for (const link of links) {
        await pp.page.goto(t.base + link.href);
        await pp.page.getByRole('heading', { level: 1 }).first().waitFor();
        await pp.page.waitForLoadState('networkidle');
        const scroll = await pp.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        if (scroll > 1) wide.push(`${link.name} (${scroll}px)`);
        await t.axe(pp.page, `[portal-phone] ${link.name}`);
      }
      t.check(links.length >= 5 && wide.length === 0, `[portal-phone] no sideways scrolling on a phone on any of ${links.length} portal page(s)${wide.length ? ': ' + wide.join(', ') : ''}`);
      await pp.page.goto(t.base + '/portal');
      await pp.page.getByRole('heading', { level: 1 }).first().waitFor();
      await t.shot(pp.page, 'portal-home-phone');
    } else {
      t.check(portalItems.every((i) => i.href.startsWith('/portal')), '[portal] the partner menu holds only portal pages');
      for (const item of consoleItems.filter((i) => i.href !== '/')) {
        await pp.page.goto(t.base + item.href);
        await pp.page.getByTestId('forbidden').waitFor();
      }
      t.check(true, `[portal] a partner user opening any of ${consoleItems.length - 1} console addresses gets the 403 view`);
      await t.shot(pp.page, 'portal-forbidden');
      await t.axe(pp.page, '[portal] 403 view');
    }
    await pp.context.close();
  }
}
