// The content library through both faces. An operator adds a folder, a file item shown to one named
// partner, a second version (both kept, the first still downloadable), a link for all partners, is
// refused a file of a type not taken (415) with the reason shown, edits and archives items and
// searches the list. The partner admin sees and downloads what it may see (the current version),
// never another partner's item or an archived one, in the portal and in the API (404).
import { readFileSync } from 'node:fs';
import { unique } from '../lib.mjs';

export const title = 'content library: folders, files and links, versions, visibility, downloads, partner scoping';

async function pick(page, scope, label, option) {
  const input = scope.getByLabel(new RegExp(`^${label}`)).and(page.locator('input:not([type=hidden])')).first();
  await input.click();
  await input.fill(option);
  await page.getByRole('option', { name: option, exact: true }).click();
}

const textFile = (name, text) => ({ name, mimeType: 'text/plain', buffer: Buffer.from(text) });

export default async function (t) {
  const ownerToken = await t.token(t.owner);
  const partnerName = unique('Content Partner');
  const partner = await t.call(ownerToken, 'POST', '/api/partners', { name: partnerName, type: 'reseller' });
  const other = await t.call(ownerToken, 'POST', '/api/partners', { name: unique('Content Other'), type: 'reseller' });
  const email = `${unique('content').replace(/\s+/g, '-').toLowerCase()}@partner.test`;
  const password = 'content-pass-' + Math.random().toString(36).slice(2);
  const user = await t.call(ownerToken, 'POST', `/api/partners/${partner.id}/users`, { email, name: 'Cora Content', roles: ['partner_admin'] });
  const partnerToken = (await t.call(null, 'POST', '/api/auth/accept-invitation', { token: user.invitation.token, password })).accessToken;

  // An item only the other partner sees, with its file.
  const foreignTitle = unique('Other partner price list');
  const foreign = await t.call(ownerToken, 'POST', '/api/content/items', { kind: 'file', title: foreignTitle, visibility: { partnerIds: [other.id] } });
  const put = await fetch(`${t.base}/api/content/items/${foreign.id}/versions?fileName=prices.txt`, {
    method: 'POST', headers: { Authorization: `Bearer ${ownerToken}`, 'Content-Type': 'application/octet-stream' }, body: 'secret prices',
  });
  t.check(put.status === 201, `the other partner's item has its file (${put.status})`);

  const op = await t.newPage({ label: 'content console' });
  const page = op.page;
  await t.signIn(page, t.owner);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Content library' }).click();
  await page.getByRole('heading', { level: 1, name: 'Content library' }).waitFor();

  // A folder.
  const folderName = unique('Sales decks');
  await page.getByRole('button', { name: 'New folder' }).click();
  await page.getByRole('dialog', { name: 'New folder' }).getByLabel('Folder name').fill(folderName);
  await page.getByRole('dialog', { name: 'New folder' }).getByRole('button', { name: 'Add folder' }).click();
  await page.getByRole('dialog', { name: 'New folder' }).waitFor({ state: 'hidden' });
  const folder = (await t.call(ownerToken, 'GET', '/api/content/folders?limit=100')).data.find((f) => f.name === folderName);
  t.check(!!folder, `the folder is in the library (${folderName})`);

  // A file item for the partner by name.
  const fileTitle = unique('Pricing deck');
  await page.getByRole('button', { name: 'Add item' }).click();
  const add = page.getByRole('dialog', { name: 'Add a content item' });
  await add.getByLabel('Title').fill(fileTitle);
  await add.getByLabel('Description').fill('List prices and reseller discounts.');
  await add.getByLabel('File', { exact: true }).setInputFiles(textFile('pricing-v1.txt', 'Pricing version one'));
  await add.getByLabel('Folder').selectOption({ label: folderName });
  await add.getByLabel('Language').fill('en');
  await add.getByLabel('Tags').fill('pricing, deck');
  await pick(page, add, 'These partners', partnerName);
  await add.getByLabel('Title').click();
  await add.getByRole('button', { name: 'Add item' }).click();
  await page.getByRole('heading', { level: 1, name: fileTitle }).waitFor();
  const itemId = new URL(page.url()).pathname.split('/').pop();
  let item = await t.call(ownerToken, 'GET', `/api/content/items/${itemId}`);
  t.check(item.kind === 'file' && item.versionNumber === 1 && item.folderId === folder?.id && item.visibility.partnerIds.join() === partner.id && !item.visibility.allPartners,
    `the file item holds version 1 in the folder, shown to the partner by name (v${item.versionNumber}, ${JSON.stringify(item.visibility)})`);

  // A second version; both stay in the history and the first still downloads.
  await page.getByRole('region', { name: 'Upload a new version' }).getByLabel('File', { exact: true }).setInputFiles(textFile('pricing-v2.txt', 'Pricing version two'));
  await page.getByRole('button', { name: 'Upload version' }).click();
  const versions = page.getByRole('table', { name: 'Versions' });
  await versions.getByText('pricing-v2.txt').waitFor();
  item = await t.call(ownerToken, 'GET', `/api/content/items/${itemId}`);
  const history = (await t.call(ownerToken, 'GET', `/api/content/items/${itemId}/versions`)).data;
  t.check(item.versionNumber === 2 && item.fileName === 'pricing-v2.txt' && history.length === 2,
    `a new version becomes current and the history keeps both (v${item.versionNumber}, ${history.length} versions)`);
  const [first] = await Promise.all([page.waitForEvent('download'), versions.getByRole('button', { name: 'Download v1 pricing-v1.txt' }).click()]);
  t.check(readFileSync(await first.path(), 'utf8') === 'Pricing version one', `the first version still downloads (${first.suggestedFilename()})`);

  // A type the library does not take.
  await page.getByRole('region', { name: 'Upload a new version' }).getByLabel('File', { exact: true })
    .setInputFiles({ name: 'page.html', mimeType: 'text/html', buffer: Buffer.from('<!DOCTYPE html><html><body><script>alert(1)</script></body></html>') });
  await page.getByRole('button', { name: 'Upload version' }).click();
  const typeAlert = page.getByRole('alert').filter({ hasText: 'File type not accepted' });
  await typeAlert.waitFor();
  t.check((await t.call(ownerToken, 'GET', `/api/content/items/${itemId}/versions`)).data.length === 2,
    `an HTML file is refused as a type not accepted and not kept: ${(await typeAlert.innerText()).replace(/\s+/g, ' ')}`);

  // Editing the details.
  const edit = page.getByRole('region', { name: 'Details and visibility' });
  await edit.getByLabel('Title').fill(`${fileTitle} 2027`);
  await edit.getByRole('button', { name: 'Save changes' }).click();
  await page.getByRole('heading', { level: 1, name: `${fileTitle} 2027` }).waitFor();
  t.check((await t.call(ownerToken, 'GET', `/api/content/items/${itemId}`)).title === `${fileTitle} 2027`, 'the item\'s new title is saved');
  await t.shot(page, 'content-item-console');
  await t.axe(page, '[console] content item');

  // A link for every partner, and an item archived after being shown to all.
  const linkTitle = unique('Brand portal');
  await page.goto(`${t.base}/content`);
  await page.getByRole('button', { name: 'Add item' }).click();
  await add.getByLabel('Kind').selectOption('link');
  await add.getByLabel('Title').fill(linkTitle);
  await add.getByLabel('Address').fill('https://brand.example/partners');
  await add.getByLabel('All partners').check();
  await add.getByRole('button', { name: 'Add item' }).click();
  await page.getByRole('heading', { level: 1, name: linkTitle }).waitFor();
  const linkId = new URL(page.url()).pathname.split('/').pop();
  const link = await t.call(ownerToken, 'GET', `/api/content/items/${linkId}`);
  t.check(link.kind === 'link' && link.url === 'https://brand.example/partners' && link.visibility.allPartners, 'the link is shown to all partners');

  const archivedTitle = unique('Old brochure');
  const archived = await t.call(ownerToken, 'POST', '/api/content/items', { kind: 'link', title: archivedTitle, url: 'https://old.example/', visibility: { allPartners: true } });
  await page.goto(`${t.base}/content/${archived.id}`);
  await page.getByRole('button', { name: 'Archive' }).click();
  await page.getByRole('dialog', { name: 'Archive this item?' }).getByRole('button', { name: 'Archive item' }).click();
  await page.getByText('archived', { exact: true }).first().waitFor();
  t.check((await t.call(ownerToken, 'GET', `/api/content/items/${archived.id}`)).status === 'archived', 'the archived item is archived in the API');

  // The list searches and filters.
  await page.goto(`${t.base}/content`);
  const list = page.getByRole('table', { name: 'Content items' });
  await page.getByLabel('Search').fill(fileTitle);
  await list.getByRole('link', { name: `${fileTitle} 2027` }).waitFor();
  await page.getByLabel('Kind').selectOption('link');
  await list.getByText('No items match these filters.').waitFor();
  t.check(true, 'the library finds the file item by title, and not among links');
  await page.getByLabel('Kind').selectOption('');
  await t.axe(page, '[console] content library');
  await op.context.close();

  // What the partner may see, by the API.
  const seen = (await t.call(partnerToken, 'GET', '/api/content/items?limit=100')).data.map((i) => i.id);
  const foreignGet = await fetch(`${t.base}/api/content/items/${foreign.id}`, { headers: { Authorization: `Bearer ${partnerToken}` } });
  const foreignDownload = await fetch(`${t.base}/api/content/items/${foreign.id}/download`, { headers: { Authorization: `Bearer ${partnerToken}` } });
  t.check(seen.includes(itemId) && seen.includes(linkId) && !seen.includes(foreign.id) && !seen.includes(archived.id),
    `the partner lists its named item and the link, not another partner's item nor the archived one (${seen.length} item(s))`);
  t.check(foreignGet.status === 404 && foreignDownload.status === 404,
    `another partner's item and its download are 404 for the partner (${foreignGet.status}, ${foreignDownload.status})`);

  // The portal's resources.
  const pp = await t.newPage({ label: 'content portal' });
  const portal = pp.page;
  await t.signIn(portal, { email, password });
  await portal.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Resources' }).click();
  await portal.getByRole('heading', { level: 1, name: 'Resources' }).waitFor();
  const resources = portal.getByRole('table', { name: 'Resources' });
  await resources.getByText(`${fileTitle} 2027`).waitFor();
  await resources.getByText(linkTitle).waitFor();
  const shown = await resources.innerText();
  t.check(!shown.includes(foreignTitle) && !shown.includes(archivedTitle), 'the portal lists neither another partner\'s item nor the archived one');
  const [dl] = await Promise.all([portal.waitForEvent('download'), resources.getByRole('button', { name: 'Download pricing-v2.txt' }).click()]);
  t.check(readFileSync(await dl.path(), 'utf8') === 'Pricing version two' && dl.suggestedFilename() === 'pricing-v2.txt',
    `the partner downloads the current version (${dl.suggestedFilename()})`);
  t.check(await resources.getByRole('link', { name: `Open ${linkTitle}` }).getAttribute('href') === 'https://brand.example/partners', 'the link opens its address');
  await portal.getByLabel('Search').fill(linkTitle);
  await resources.getByText(linkTitle).waitFor();
  await resources.getByText(`${fileTitle} 2027`).waitFor({ state: 'detached' });
  t.check(true, 'searching the resources narrows the list');
  await t.shot(portal, 'content-portal');
  await t.axe(portal, '[portal] resources');
  await pp.context.close();
}
