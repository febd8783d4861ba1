// A PDF agreement version through both faces. The operator uploads a PDF as version 1 from the
// agreement's page and publishes it required of this spec's own level. The partner at that level is
// held on the agreement in the portal: it sees the PDF's name and SHA-256 and downloads exactly the
// bytes hashed, accepts, and the portal opens. The acceptance and its signed certificate name the
// PDF's hash. The requirement is ended at the end.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { unique } from '../lib.mjs';

export const title = 'agreements: a PDF version uploaded, downloaded by its hash and accepted in the portal';

async function pick(page, scope, label, option) {
  const input = scope.getByLabel(new RegExp(`^${label}`)).and(page.locator('input:not([type=hidden])')).first();
  await input.click();
  await input.fill(option);
  await page.getByRole('option', { name: option, exact: true }).click();
  // A multi-select keeps its list open after a pick; leaving the field closes it, so that it does
  // not lie over the dialog's buttons (the longer the list of levels, the more it covers).
  await input.blur();
}

export default async function (t) {
  const ownerToken = await t.token(t.owner);
  const level = unique('PDF level');
  await t.call(ownerToken, 'POST', '/api/levels', { name: level, rank: 1000 + Math.floor(Math.random() * 1e6) });
  const partner = await t.call(ownerToken, 'POST', '/api/partners', { name: unique('PDF Partner'), type: 'reseller' });
  await t.call(ownerToken, 'PATCH', `/api/partners/${partner.id}`, { level });
  const email = `${unique('pdfagree').replace(/\s+/g, '-').toLowerCase()}@partner.test`;
  const password = 'pdf-pass-' + Math.random().toString(36).slice(2);
  const user = await t.call(ownerToken, 'POST', `/api/partners/${partner.id}/users`, { email, name: 'Pia Pdf', roles: ['partner_admin'] });
  await t.call(null, 'POST', '/api/auth/accept-invitation', { token: user.invitation.token, password });

  const agreementTitle = unique('NDA as PDF');
  const agreement = await t.call(ownerToken, 'POST', '/api/agreements', { kind: 'nda', title: agreementTitle });
  const pdf = Buffer.from(`%PDF-1.7\n% ${agreementTitle}\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n`);
  const hash = createHash('sha256').update(pdf).digest('hex');
  try {
    // The operator uploads the PDF from the agreement's page and publishes it for the level.
    const op = await t.newPage({ label: 'agreement pdf console' });
    const page = op.page;
    await t.signIn(page, t.owner);
    await page.goto(`${t.base}/agreements/${agreement.id}`);
    await page.getByRole('heading', { level: 1, name: agreementTitle }).waitFor();
    await page.getByRole('button', { name: 'Upload a PDF version' }).click();
    const upload = page.getByRole('dialog', { name: 'Upload a PDF version' });
    await upload.locator('input[type=file]').setInputFiles({ name: 'mutual-nda.pdf', mimeType: 'application/pdf', buffer: pdf });
    await upload.getByLabel('What changed').fill('Signed by legal');
    await upload.getByRole('button', { name: 'Save draft' }).click();
    await upload.waitFor({ state: 'hidden' });
    await page.getByRole('button', { name: 'Download mutual-nda.pdf' }).waitFor();
    t.check((await page.getByTestId('agreement-sha256').innerText()) === hash, 'the console shows the SHA-256 of the exact PDF uploaded');
    await t.axe(page, '[console] PDF agreement version');
    await page.getByRole('button', { name: 'Publish version 1' }).click();
    const publish = page.getByRole('dialog', { name: 'Publish version 1?' });
    await pick(page, publish, 'Partners at these levels', level);
    await publish.getByRole('button', { name: 'Publish', exact: true }).click();
    await publish.waitFor({ state: 'hidden' });
    await page.getByTestId('requirement').getByText(`Version 1 must be accepted by levels ${level}`).waitFor();
    const [version] = (await t.call(ownerToken, 'GET', `/api/agreements/${agreement.id}/versions`)).data;
    t.check(version.contentType === 'application/pdf' && version.sha256 === hash && version.fileName === 'mutual-nda.pdf' && version.status === 'published',
      `version 1 is the published PDF (${version.contentType}, ${version.fileName}, ${version.status})`);

    // The partner is held on the agreement: the PDF's name and hash, the download is those bytes.
    const pp = await t.newPage({ label: 'agreement pdf portal' });
    const portal = pp.page;
    await portal.goto(t.base + '/login');
    await portal.getByLabel(/^Email/).fill(email);
    await portal.getByLabel(/^Password/).and(portal.locator('input')).fill(password);
    await portal.getByRole('button', { name: 'Sign in' }).click();
    await portal.getByRole('heading', { level: 2, name: agreementTitle }).waitFor();
    t.check((await portal.getByTestId('agreement-sha256').innerText()) === hash, 'the portal shows the PDF\'s SHA-256');
    const [file] = await Promise.all([portal.waitForEvent('download'), portal.getByRole('button', { name: 'Download mutual-nda.pdf' }).click()]);
    const got = readFileSync(await file.path());
    t.check(createHash('sha256').update(got).digest('hex') === hash && file.suggestedFilename() === 'mutual-nda.pdf',
      `the partner downloads exactly the bytes hashed (${got.length} bytes, ${file.suggestedFilename()})`);
    await t.axe(portal, '[portal] PDF agreement to accept');
    await portal.getByLabel('I have read this agreement and accept it for my organisation').check();
    await portal.getByRole('button', { name: 'I accept' }).click();
    await portal.getByRole('heading', { level: 1, name: /^Welcome/ }).waitFor();
    t.check(true, 'after accepting, the portal opens');
    await pp.context.close();

    const [acceptance] = (await t.call(ownerToken, 'GET', `/api/agreement-acceptances?agreementId=${agreement.id}`)).data;
    t.check(acceptance?.sha256 === hash && acceptance.partnerId === partner.id, 'the acceptance records the PDF\'s hash');
    const cert = await t.call(ownerToken, 'GET', `/api/agreement-acceptances/${acceptance.id}/certificate`);
    const signed = JSON.parse(Buffer.from(cert.jws.split('.')[1], 'base64url').toString('utf8'));
    t.check(signed.sha256 === hash && signed.contentType === 'application/pdf' && signed.fileName === 'mutual-nda.pdf',
      'the signed certificate names the PDF by its hash, type and name');
    await op.context.close();
  } finally {
    await t.call(ownerToken, 'PUT', `/api/agreements/${agreement.id}/requirement`, { versionId: '' });
  }
}
