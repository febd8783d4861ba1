// White-label portals in the console. The owner sets the portal's name, a colour and a CSS
// variable on the Branding page and uploads a logo, seeing its preview first; the API answers
// what was saved and the public brand serves the logo. On the Domains page the owner adds a host,
// is shown the TXT record to create (with copy buttons) matching the API's, asks to verify it
// now and removes it after confirming. Both pages and the dialogs pass axe.
import { unique } from '../lib.mjs';
import { png } from '../png.mjs';

export const title = 'branding and custom domains: brand, logo upload with preview, add, verify and remove a domain';

export default async function (t) {
  const ownerToken = await t.token(t.owner);
  const tenant = await t.call(ownerToken, 'GET', '/api/tenant');
  const { page, context } = await t.newPage({ label: 'branding console' });
  await t.signIn(page, t.owner);
  const nav = page.getByRole('navigation', { name: 'Main' });

  // Branding: name, a colour and a CSS variable.
  await nav.getByRole('link', { name: 'Branding' }).click();
  await page.getByRole('heading', { level: 1, name: 'Branding' }).waitFor();
  const portalName = unique('Portal');
  await page.getByLabel('Portal name').fill(portalName);
  await page.getByRole('textbox', { name: 'Primary colour' }).fill('#1f6feb');
  await page.getByRole('textbox', { name: 'Primary colour' }).press('Tab'); // leaving the field closes its picker
  await page.getByRole('button', { name: 'Add variable' }).click();
  await page.getByLabel('Variable 1 name').fill('--brand-radius');
  await page.getByLabel('Variable 1 value').fill('8px');
  await t.axe(page, '[console] branding page');
  await page.getByRole('button', { name: 'Save brand' }).click();
  await page.getByText('Brand saved').waitFor();
  const saved = await t.call(ownerToken, 'GET', '/api/settings/branding');
  t.check(saved.name === portalName && saved.theme.primary === '#1f6feb' && saved.cssVariables['--brand-radius'] === '8px',
    `the brand is saved: ${JSON.stringify({ name: saved.name, theme: saved.theme, css: saved.cssVariables })}`);

  // A logo: preview first, then the upload; the public brand serves it.
  await page.getByLabel('New logo').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: png(32, [31, 111, 235]) });
  await page.getByRole('img', { name: 'Preview of the new logo' }).waitFor();
  await page.getByRole('button', { name: 'Upload logo' }).click();
  await page.getByText('Logo uploaded').waitFor();
  await page.getByRole('img', { name: 'Current logo' }).waitFor();
  const pub = await t.call(null, 'GET', `/api/branding?tenant=${encodeURIComponent(tenant.slug)}`);
  t.check(pub.name === portalName && pub.logo?.width === 32, `the public brand has the name and the 32 px logo (${JSON.stringify(pub.logo)})`);
  const img = await page.request.get(t.base + pub.logo.url);
  t.check(img.ok() && img.headers()['content-type'] === 'image/png', `the logo is served as PNG (${img.status()})`);
  await t.shot(page, 'branding');

  // Domains: add a host, see the record to create, verify now, remove.
  await nav.getByRole('link', { name: 'Domains' }).click();
  await page.getByRole('heading', { level: 1, name: 'Domains' }).waitFor();
  const host = `${unique('portal').replace(/\s+/g, '-').toLowerCase()}.example.com`;
  await page.getByRole('button', { name: 'Add domain' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add a custom domain' });
  await dialog.getByLabel('Host').fill(host);
  await t.axe(page, '[console] add a domain dialog');
  await dialog.getByRole('button', { name: 'Add domain' }).click();
  const added = page.getByRole('dialog', { name: `Verify ${host}` });
  await added.waitFor();
  const listed = (await t.call(ownerToken, 'GET', '/api/domains?limit=100')).data.find((d) => d.host === host);
  t.check(listed?.status === 'pending', `the domain is pending (${listed?.status})`);
  await added.getByText(listed.record.value, { exact: true }).waitFor();
  await added.getByText(`_partnerd-challenge.${host}`, { exact: true }).waitFor();
  t.check(await added.getByRole('button', { name: `Copy record value for ${host}` }).isVisible(), 'the record value has a copy button');
  await t.axe(page, '[console] the TXT record to create');
  await added.getByRole('button', { name: 'Done' }).click();
  await added.waitFor({ state: 'hidden' });

  const row = page.getByRole('row').filter({ hasText: host });
  await row.getByText('pending').waitFor();
  await t.axe(page, '[console] domains page');
  await t.shot(page, 'domains');
  await row.getByRole('button', { name: `Verify ${host} now` }).click();
  await page.getByText(`Checking ${host} now`).waitFor();

  await row.getByRole('button', { name: `Remove ${host}` }).click();
  const confirm = page.getByRole('dialog', { name: `Remove ${host}?` });
  await confirm.getByRole('button', { name: 'Remove domain' }).click();
  await page.getByText(`${host} removed`).waitFor();
  await row.waitFor({ state: 'detached' });
  const after = (await t.call(ownerToken, 'GET', '/api/domains?limit=100')).data.filter((d) => d.host === host);
  t.check(after.length === 0, `the domain is removed (${after.length} left)`);
  await context.close();
}
