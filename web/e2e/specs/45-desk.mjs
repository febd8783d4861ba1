// The service desk through both faces. The desk opens a ticket for a partner, replies with a file,
// writes an internal note with a file of its own, is refused a file of a type not taken (415) and
// one too large (413) with the reason shown, triages and filters the queue. The partner admin sees
// the thread without the note or its file (in the page and in the API), downloads the desk's file,
// replies with a file, resolves and closes the ticket, opens a ticket about one of its customers,
// and cannot open another partner's ticket.
import { readFileSync } from 'node:fs';
import { unique } from '../lib.mjs';

export const title = 'service desk: tickets, thread, internal notes, attachments, status, partner scoping';

async function pick(page, scope, label, option) {
  const input = scope.getByLabel(new RegExp(`^${label}`)).and(page.locator('input:not([type=hidden])')).first();
  await input.click();
  await input.fill(option);
  await page.getByRole('option', { name: option, exact: true }).click();
}

const textFile = (name, text) => ({ name, mimeType: 'text/plain', buffer: Buffer.from(text) });

export default async function (t) {
  const ownerToken = await t.token(t.owner);
  const me = await t.call(ownerToken, 'GET', '/api/me');
  const partnerName = unique('Desk Partner');
  const partner = await t.call(ownerToken, 'POST', '/api/partners', { name: partnerName, type: 'reseller' });
  const other = await t.call(ownerToken, 'POST', '/api/partners', { name: unique('Desk Other'), type: 'reseller' });
  const customerName = unique('Desk Customer');
  const customer = await t.call(ownerToken, 'POST', '/api/customers', { name: customerName, email: `${customerName.split(' ').pop()}@customer.test`, partnerId: partner.id });
  const email = `${unique('desk').replace(/\s+/g, '-').toLowerCase()}@partner.test`;
  const password = 'desk-pass-' + Math.random().toString(36).slice(2);
  const user = await t.call(ownerToken, 'POST', `/api/partners/${partner.id}/users`, { email, name: 'Dana Desk', roles: ['partner_admin'] });
  const partnerToken = (await t.call(null, 'POST', '/api/auth/accept-invitation', { token: user.invitation.token, password })).accessToken;
  const foreign = await t.call(ownerToken, 'POST', '/api/tickets', { partnerId: other.id, subject: unique('Other partner issue'), body: 'Not for the desk partner.' });

  // The desk opens a ticket for the partner.
  const op = await t.newPage({ label: 'desk console' });
  const page = op.page;
  await t.signIn(page, t.owner);
  // A category the desk files tickets under.
  const categoryName = unique('Payouts');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Ticket categories' }).click();
  await page.getByRole('heading', { level: 1, name: 'Ticket categories' }).waitFor();
  await page.getByRole('button', { name: 'Add category' }).click();
  const catDialog = page.getByRole('dialog', { name: 'Add a category' });
  await catDialog.getByLabel('Name').fill(categoryName);
  await catDialog.getByLabel('Description').fill('Missing or late payouts');
  await catDialog.getByRole('button', { name: 'Add category' }).click();
  await page.getByRole('table', { name: 'Ticket categories' }).getByText(categoryName).waitFor();
  const category = (await t.call(ownerToken, 'GET', '/api/ticket-categories?limit=100')).data.find((c) => c.name === categoryName);
  t.check(!!category, `the category is added (${categoryName})`);
  await t.axe(page, '[console] ticket categories');

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Tickets', exact: true }).click();
  await page.getByRole('heading', { level: 1, name: 'Tickets' }).waitFor();
  await page.getByRole('button', { name: 'Open a ticket' }).click();
  const dialog = page.getByRole('dialog', { name: 'Open a ticket' });
  const subject = unique('Payout missing');
  await pick(page, dialog, 'Partner', partnerName);
  await dialog.getByLabel('On behalf of').selectOption({ label: `Dana Desk (${email})` });
  await dialog.getByLabel('Subject').fill(subject);
  await dialog.getByLabel('Message').fill('Your October payout bounced; please check your IBAN.');
  await dialog.getByLabel('Priority').selectOption('high');
  await dialog.getByLabel('Category').selectOption({ label: categoryName });
  await dialog.getByRole('button', { name: 'Open ticket' }).click();
  await page.getByRole('heading', { level: 1, name: subject }).waitFor();
  const ticketId = new URL(page.url()).pathname.split('/').pop();
  let ticket = await t.call(ownerToken, 'GET', `/api/tickets/${ticketId}`);
  t.check(ticket.partnerId === partner.id && ticket.priority === 'high' && ticket.status === 'open' && ticket.categoryId === category?.id && ticket.requesterId === user.id,
    `the desk opened a high-priority ticket for the partner user in the category (${ticket.partnerId === partner.id}, ${ticket.priority}, ${ticket.status}, ${ticket.categoryId === category?.id}, ${ticket.requesterId === user.id})`);

  // A reply with a file, then an internal note with a file of its own.
  const publicFile = `bank-letter-${Date.now()}.txt`;
  const internalFile = `risk-check-${Date.now()}.txt`;
  const note = `Internal: partner flagged by risk ${Date.now()}`;
  await page.getByLabel('Your message').fill('We sent it again; the bank letter is attached.');
  await page.getByLabel('Attach a file', { exact: true }).setInputFiles(textFile(publicFile, 'Bank letter: payout returned, IBAN mismatch.'));
  await page.getByRole('button', { name: 'Send reply' }).click();
  await page.getByRole('button', { name: `Download ${publicFile}` }).first().waitFor();
  await page.getByLabel('Your message').fill(note);
  await page.getByLabel('Attach a file', { exact: true }).setInputFiles(textFile(internalFile, 'Risk score 0.93 — do not share.'));
  await page.getByRole('button', { name: 'Add internal note' }).click();
  const noteCard = page.getByRole('article', { name: 'Internal note' }).filter({ hasText: note });
  await noteCard.waitFor();
  t.check(await noteCard.getByText(/Internal note · partners never see it/).isVisible(), 'the internal note is marked as internal in the thread');
  await noteCard.getByRole('button', { name: `Download ${internalFile}` }).waitFor();
  const attachments = (await t.call(ownerToken, 'GET', `/api/tickets/${ticketId}/attachments`)).data;
  const pub = attachments.find((a) => a.name === publicFile);
  const internal = attachments.find((a) => a.name === internalFile);
  t.check(pub && !pub.internal && pub.messageId && internal?.internal === true,
    `the API holds the reply's file as public and the note's file as internal (${attachments.map((a) => `${a.name}:${a.internal}`).join(', ')})`);
  ticket = await t.call(ownerToken, 'GET', `/api/tickets/${ticketId}`);
  t.check(ticket.status === 'pending_partner' && !!ticket.firstResponseAt, `the desk's reply leaves the ticket pending on the partner (${ticket.status})`);
  await t.shot(page, 'desk-ticket-console');
  await t.axe(page, '[console] ticket');

  // Refused uploads say why.
  const upload = page.getByLabel('Add a file to the ticket');
  await upload.setInputFiles({ name: 'page.html', mimeType: 'text/html', buffer: Buffer.from('<!DOCTYPE html><html><body><script>alert(1)</script></body></html>') });
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  const typeAlert = page.getByRole('alert').filter({ hasText: 'File type not accepted' });
  await typeAlert.waitFor();
  t.check(/not (taken|accepted)/i.test(await typeAlert.innerText()), `an HTML file is refused as a type not accepted (415): ${(await typeAlert.innerText()).replace(/\s+/g, ' ')}`);
  await upload.setInputFiles({ name: 'huge.txt', mimeType: 'text/plain', buffer: Buffer.alloc((10 << 20) + 512, 'a') });
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  const sizeAlert = page.getByRole('alert').filter({ hasText: /File too large|Upload failed/ });
  await sizeAlert.waitFor({ timeout: 30_000 });
  t.check(/too large|at most|larger/i.test(await sizeAlert.innerText()), `a file over 10 MiB is refused as too large (413): ${(await sizeAlert.innerText()).replace(/\s+/g, ' ')}`);
  const after = (await t.call(ownerToken, 'GET', `/api/tickets/${ticketId}/attachments`)).data;
  t.check(after.length === 2, `refused files are not kept (${after.length} attachment(s))`);

  // Triage: assign to me and tag it.
  const triage = page.getByRole('region', { name: 'Triage' });
  await pick(page, triage, 'Assignee', me.name ? `${me.name} (${me.email})` : me.email);
  await triage.getByLabel('Tags').fill('payouts, bank');
  await triage.getByRole('button', { name: 'Save triage' }).click();
  await page.getByText('Ticket updated').waitFor();
  ticket = await t.call(ownerToken, 'GET', `/api/tickets/${ticketId}`);
  t.check(ticket.assigneeUserId === me.userId && ticket.tags.join(',') === 'payouts,bank',
    `triage assigned the ticket to me and tagged it (${ticket.assigneeUserId === me.userId}, ${ticket.tags})`);

  // The queue filters by status and subject.
  await page.goto(`${t.base}/tickets`);
  await page.getByLabel('Search subjects').fill(subject);
  const list = page.getByRole('table', { name: 'Tickets' });
  await list.getByRole('link', { name: subject }).waitFor();
  await page.getByLabel('Status').selectOption('pending_partner');
  await list.getByRole('link', { name: subject }).waitFor();
  await page.getByLabel('Category').selectOption({ label: categoryName });
  await list.getByRole('link', { name: subject }).waitFor();
  await page.getByLabel('Status').selectOption('closed');
  await list.getByText('No tickets match these filters.').waitFor();
  t.check(true, 'the queue finds the ticket by subject and status, and not among closed ones');
  await page.getByLabel('Status').selectOption('');
  await t.axe(page, '[console] tickets');
  await op.context.close();

  // The ticket page in the dark colour scheme, internal note included.
  const dark = await t.newPage({ label: 'desk dark', colorScheme: 'dark' });
  await t.signIn(dark.page, t.owner);
  await dark.page.goto(`${t.base}/tickets/${ticketId}`);
  await dark.page.getByRole('article', { name: 'Internal note' }).waitFor();
  await t.axe(dark.page, '[console-dark] ticket');
  await dark.context.close();

  // The partner never sees the note or its file.
  const apiMessages = (await t.call(partnerToken, 'GET', `/api/tickets/${ticketId}/messages`)).data;
  const apiFiles = (await t.call(partnerToken, 'GET', `/api/tickets/${ticketId}/attachments`)).data;
  const internalDownload = await fetch(`${t.base}/api/ticket-attachments/${internal?.id}`, { headers: { Authorization: `Bearer ${partnerToken}` } });
  t.check(apiMessages.every((m) => !m.internal && m.body !== note) && apiFiles.every((a) => a.name !== internalFile) && internalDownload.status === 404,
    `the API gives the partner no internal note, no internal file, and 404 for its download (${apiMessages.length} messages, ${apiFiles.length} files, ${internalDownload.status})`);
  const foreignRead = await fetch(`${t.base}/api/tickets/${foreign.id}`, { headers: { Authorization: `Bearer ${partnerToken}` } });
  t.check(foreignRead.status === 404, `the API refuses the partner another partner's ticket (${foreignRead.status})`);

  const pp = await t.newPage({ label: 'desk portal' });
  const portal = pp.page;
  await t.signIn(portal, { email, password });
  await portal.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Support tickets' }).click();
  await portal.getByRole('heading', { level: 1, name: 'Support tickets' }).waitFor();
  await portal.getByRole('table', { name: 'Tickets' }).getByRole('link', { name: subject }).click();
  await portal.getByRole('heading', { level: 1, name: subject }).waitFor();
  await portal.getByText('We sent it again; the bank letter is attached.').waitFor();
  await portal.getByRole('button', { name: `Download ${publicFile}` }).first().waitFor();
  const shown = await portal.locator('main').innerText();
  t.check(!shown.includes(note) && !shown.includes(internalFile) && !/internal note/i.test(shown),
    'the portal shows the desk reply and its file, never the internal note or its file');
  const [download] = await Promise.all([portal.waitForEvent('download'), portal.getByRole('button', { name: `Download ${publicFile}` }).first().click()]);
  const got = readFileSync(await download.path(), 'utf8');
  t.check(download.suggestedFilename() === publicFile && got.includes('IBAN mismatch'), `the partner downloads the desk's file (${download.suggestedFilename()})`);
  t.check((await portal.getByRole('button', { name: 'Wait on partner' }).count()) === 0 && await portal.getByRole('button', { name: 'Resolve' }).isVisible(),
    'the partner is offered only the moves it may make (resolve)');
  await t.axe(portal, '[portal] ticket');

  // The partner replies with a file, then resolves and closes.
  const partnerFile = `iban-${Date.now()}.csv`;
  await portal.getByLabel('Your message').fill('IBAN corrected, see the file.');
  await portal.getByLabel('Attach a file', { exact: true }).setInputFiles({ name: partnerFile, mimeType: 'text/csv', buffer: Buffer.from('iban\nDE89370400440532013000\n') });
  await portal.getByRole('button', { name: 'Send reply' }).click();
  await portal.getByRole('button', { name: `Download ${partnerFile}` }).first().waitFor();
  ticket = await t.call(ownerToken, 'GET', `/api/tickets/${ticketId}`);
  t.check(ticket.status === 'pending_operator', `the partner's reply puts the ticket back with the desk (${ticket.status})`);
  await portal.getByRole('button', { name: 'Resolve' }).click();
  await portal.getByRole('button', { name: 'Reopen' }).waitFor();
  ticket = await t.call(ownerToken, 'GET', `/api/tickets/${ticketId}`);
  t.check(ticket.status === 'resolved', `the partner resolved the ticket (${ticket.status})`);
  await portal.getByRole('button', { name: 'Close', exact: true }).click();
  await portal.getByRole('dialog', { name: 'Close this ticket?' }).getByRole('button', { name: 'Close ticket' }).click();
  await portal.getByText('This ticket is closed and takes no more replies.').waitFor();
  ticket = await t.call(ownerToken, 'GET', `/api/tickets/${ticketId}`);
  t.check(ticket.status === 'closed' && !(await portal.getByLabel('Your message').count()), `the partner closed it and can no longer reply (${ticket.status})`);
  await t.shot(portal, 'desk-ticket-portal');

  // A ticket about one of the partner's customers.
  await portal.getByRole('link', { name: /Support tickets/ }).first().click();
  await portal.getByRole('heading', { level: 1, name: 'Support tickets' }).waitFor();
  await portal.getByRole('button', { name: 'Open a ticket' }).click();
  const open = portal.getByRole('dialog', { name: 'Open a ticket' });
  const subject2 = unique('Customer cannot sign in');
  const customerBox = open.getByLabel(/^Customer \(optional\)/).and(portal.locator('input:not([type=hidden])')).first();
  await customerBox.click();
  await customerBox.fill(customerName.split(' ').pop());
  await portal.getByRole('option', { name: customerName }).click();
  await open.getByLabel('Subject').fill(subject2);
  await open.getByLabel('Message').fill('Our customer gets an error on sign-in.');
  await open.getByRole('button', { name: 'Open ticket' }).click();
  await portal.getByRole('heading', { level: 1, name: subject2 }).waitFor();
  const own = await t.call(ownerToken, 'GET', `/api/tickets/${new URL(portal.url()).pathname.split('/').pop()}`);
  t.check(own.partnerId === partner.id && own.customerId === customer.id && own.requesterId === user.id,
    `the partner opened a ticket for its customer, as itself (${own.partnerId === partner.id}, ${own.customerId === customer.id}, ${own.requesterId === user.id})`);
  await portal.goto(`${t.base}/portal/tickets`);
  await portal.getByRole('table', { name: 'Tickets' }).getByRole('link', { name: subject2 }).waitFor();
  t.check(!(await portal.getByRole('table', { name: 'Tickets' }).innerText()).includes(foreign.subject), 'the portal lists none of another partner\'s tickets');
  await t.axe(portal, '[portal] tickets');

  // Another partner's ticket by its address: not found.
  await portal.goto(`${t.base}/portal/tickets/${foreign.id}`);
  await portal.getByRole('alert').waitFor();
  t.check(!(await portal.locator('main').innerText()).includes(foreign.subject), 'opening another partner\'s ticket by address shows an error, not the ticket');
  await pp.context.close();
}
