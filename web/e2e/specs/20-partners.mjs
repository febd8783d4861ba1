// Partners and recruitment: an operator searches and filters partners, adds one, invites a
// person to it and sees the invitation link exactly once; that person accepts it in another
// browser and lands on the portal, and the operator renames them. An application sent through the
// public application page is read and approved in the console, which creates its partner and shows
// the applicant's invitation once; the application form and the onboarding checklist are edited.
import { unique } from '../lib.mjs';

export const title = 'partners: search, create, invite once, accept; an application approved';

/** Picks an option of the Mantine select labelled `label` inside `scope`. */
async function choose(page, scope, label, option) {
  // A required field's label ends in an asterisk.
  await scope.getByLabel(new RegExp(`^${label}( \\*)?$`)).and(scope.locator('input[aria-haspopup="listbox"]')).click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

/**
 * The rows of the table named `name`, as their text, once `settled` holds for them (a table
 * refetching after a filter change shows the previous rows meanwhile) or after 10 s.
 */
async function rows(page, name, settled = () => true) {
  const table = page.getByRole('table', { name });
  await table.waitFor();
  const until = Date.now() + 10_000;
  for (;;) {
    const busy = await table.getAttribute('aria-busy') === 'true' || await table.locator('.mantine-Skeleton-root').count() > 0;
    const texts = await table.locator('tbody tr').allInnerTexts();
    if ((!busy && settled(texts)) || Date.now() > until) return texts;
    await page.waitForTimeout(150);
  }
}

export default async function (t) {
  const ownerToken = await t.token(t.owner);
  const me = await t.call(ownerToken, 'GET', '/api/me');

  // Two partners to find: one suspended.
  const stem = unique('Zebra').replace(/\s+/g, '');
  const active = await t.call(ownerToken, 'POST', '/api/partners', { name: `${stem} Active Resellers`, type: 'reseller' });
  const suspended = await t.call(ownerToken, 'POST', '/api/partners', { name: `${stem} Sleepy Brokers`, type: 'broker' });
  await t.call(ownerToken, 'PATCH', `/api/partners/${suspended.id}`, { status: 'suspended' });

  const { page, context } = await t.newPage({ label: 'partners' });
  await t.signIn(page, t.owner);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Partners', exact: true }).click();
  await page.getByRole('heading', { level: 1, name: 'Partners' }).waitFor();

  // Search: a lower-case part of the name finds both, and only them.
  await page.getByLabel('Search by name').fill(stem.toLowerCase());
  await page.waitForURL((u) => u.searchParams.get('q') === stem.toLowerCase());
  let listed = await rows(page, 'Partners', (r) => r.length === 2);
  t.check(listed.length === 2 && listed.some((r) => r.includes('Active Resellers')) && listed.some((r) => r.includes('Sleepy Brokers')),
    `searching "${stem.toLowerCase()}" lists the two partners named so (${listed.length} row(s))`);
  await choose(page, page, 'Status', 'Suspended');
  await page.waitForURL((u) => u.searchParams.get('status') === 'suspended');
  listed = await rows(page, 'Partners', (r) => r.length === 1);
  t.check(listed.length === 1 && listed[0].includes('Sleepy Brokers') && /suspended/i.test(listed[0]),
    `with status Suspended only the suspended one is left: ${JSON.stringify(listed)}`);
  await page.getByLabel('Search by name').fill(`${stem} nobody`);
  await page.getByText('No partner matches these filters.').waitFor();
  t.check(true, 'a search that matches nothing says so');
  await t.shot(page, 'partners-search');
  await t.axe(page, 'partners list, filtered');

  // A new partner from the UI opens on its page.
  const name = `${stem} Agency Created`;
  await page.getByRole('button', { name: 'New partner' }).click();
  const dialog = page.getByRole('dialog', { name: 'New partner' });
  await dialog.getByRole('button', { name: 'Add partner' }).click();
  await dialog.getByText('Name the partner').waitFor();
  t.check(await dialog.getByText('Choose a type').isVisible(), 'the new-partner form names its missing fields beside them');
  await dialog.getByRole('textbox', { name: 'Name' }).fill(name);
  await choose(page, dialog, 'Type', 'Agency');
  await dialog.getByRole('button', { name: 'Add partner' }).click();
  await page.getByRole('heading', { level: 1, name }).waitFor();
  const partnerId = new URL(page.url()).pathname.split('/').pop();
  const created = await t.call(ownerToken, 'GET', `/api/partners/${partnerId}`);
  t.check(created.name === name && created.type === 'agency' && created.status === 'active',
    `the partner made in the UI is in the API: ${created.name}, ${created.type}, ${created.status}, level ${created.level}`);
  const found = await t.call(ownerToken, 'GET', `/api/partners?q=${encodeURIComponent(stem.toUpperCase())}&status=active`);
  t.check(found.data.length === 2 && found.data.some((p) => p.id === active.id) && found.data.every((p) => p.id !== suspended.id),
    `the API's search finds it with the other active one: ${found.data.map((p) => p.name).join(', ')}`);
  await page.getByRole('heading', { name: 'Onboarding' }).waitFor();
  await page.getByText(/^(Evaluates to|No levels defined)/).first().waitFor();

  // A person invited to it: the link is shown once.
  const email = `${stem.toLowerCase()}@partner.test`;
  await page.getByRole('button', { name: 'Add user' }).click();
  const add = page.getByRole('dialog', { name: /^Add a user/ });
  await add.getByRole('textbox', { name: 'Name' }).fill('Ada Agent');
  await add.getByRole('textbox', { name: 'Email' }).fill(email);
  await add.getByRole('button', { name: 'Add and invite' }).click();
  const secret = page.getByTestId('secret-once');
  await secret.waitFor();
  const link = (await secret.innerText()).trim();
  t.check(link.startsWith(`${t.base}/accept-invitation#token=`) && link.length > `${t.base}/accept-invitation#token=`.length + 16,
    `the invitation link is shown: ${link.slice(0, link.indexOf('#') + 7)}…`);
  await t.shot(page, 'partner-invitation-once');
  await page.getByRole('button', { name: 'I have stored it' }).click();
  await secret.waitFor({ state: 'detached' });
  const token = link.split('#token=')[1];
  let users = await rows(page, `Users of ${name}`, (r) => r.length === 1 && r[0].includes(email));
  t.check(users.length === 1 && users[0].includes(email) && /invited/i.test(users[0]), `the user is listed as invited: ${JSON.stringify(users)}`);
  await page.reload();
  await page.getByRole('heading', { level: 1, name }).waitFor();
  users = await rows(page, `Users of ${name}`, (r) => r.length === 1 && r[0].includes(email));
  const html = await page.content();
  t.check(users.length === 1 && !html.includes(token) && await page.getByTestId('secret-once').count() === 0,
    'after closing and reloading the invitation link is shown no more');
  await t.axe(page, 'partner detail');
  await t.shot(page, 'partner-detail');

  // The invited person accepts in a browser of their own and lands on the portal.
  const invited = await t.newPage({ label: 'invited partner user' });
  await invited.page.goto(link);
  await invited.page.getByRole('heading', { name: 'Accept your invitation' }).waitFor();
  const password = 'zebra-pass-' + Math.random().toString(36).slice(2);
  await invited.page.getByLabel(/^New password/).and(invited.page.locator('input')).fill(password);
  await invited.page.getByLabel(/^Repeat it/).and(invited.page.locator('input')).fill(password);
  await invited.page.getByRole('button', { name: 'Accept and sign in' }).click();
  await invited.page.waitForURL((u) => u.pathname === '/portal');
  await invited.page.getByRole('heading', { level: 1 }).first().waitFor();
  t.check(!invited.page.url().includes('token='), `the invited person lands on ${new URL(invited.page.url()).pathname} and the token left the address`);
  const theirMe = await t.call(await t.token({ email, password }), 'GET', '/api/me');
  t.check(theirMe.kind === 'partner_user' && theirMe.partnerId === partnerId, 'they sign in with the new password as a user of that partner');
  await invited.context.close();
  const apiUsers = await t.call(ownerToken, 'GET', `/api/partners/${partnerId}/users`);
  t.check(apiUsers.data.length === 1 && apiUsers.data[0].status === 'active', `the API now holds the user as ${apiUsers.data[0]?.status}`);
  await page.reload();
  users = await rows(page, `Users of ${name}`, (r) => /active/i.test(r[0] ?? ''));
  t.check(/active/i.test(users[0] ?? ''), 'the partner page shows the user active');

  // The operator renames them; the co-brand card says the partner has no logo yet.
  await page.getByRole('button', { name: 'Edit Ada Agent' }).click();
  const edit = page.getByRole('dialog', { name: 'Edit Ada Agent' });
  await edit.getByRole('textbox', { name: 'Name' }).fill('Ada Agent-Smith');
  await edit.getByRole('button', { name: 'Save' }).click();
  await edit.waitFor({ state: 'detached' });
  users = await rows(page, `Users of ${name}`, (r) => r[0]?.includes('Ada Agent-Smith') ?? false);
  const renamed = await t.call(ownerToken, 'GET', `/api/partner-users/${apiUsers.data[0].id}`);
  t.check(users[0]?.includes('Ada Agent-Smith') && renamed.name === 'Ada Agent-Smith' && renamed.roles.join() === apiUsers.data[0].roles.join(),
    `renaming a partner user in the console reaches the API (${renamed.name}, roles ${renamed.roles.join(', ')})`);
  const coBrand = page.getByRole('region', { name: 'Co-brand logo' });
  await coBrand.getByText(/^No logo/).waitFor();
  t.check(await coBrand.getByRole('button', { name: 'Upload logo' }).count() === 1, 'the partner page offers the owner a co-brand logo upload');

  // An application through the public form, approved in the console.
  const slug = me.tenant.slug;
  const form = await t.call(ownerToken, 'GET', '/api/application-form');
  if (!form.questions?.some((q) => q.key === 'why')) {
    await t.call(ownerToken, 'PUT', '/api/application-form', {
      questions: [...(form.questions ?? []), { key: 'why', label: 'Why do you want to partner with us?', required: false }],
      reapplyAfterDays: form.reapplyAfterDays ?? 0, autoApproveDomains: form.autoApproveDomains ?? [],
    });
  }
  const publicForm = await t.call(null, 'GET', `/api/public/${slug}/application-form`);
  const organisation = `${stem} Applicant GmbH`;
  const applicant = await t.newPage({ label: 'public application page' });
  const ap = applicant.page;
  await ap.goto(`${t.base}/apply/${slug}`);
  await ap.getByRole('heading', { level: 1, name: 'Apply to become a partner' }).waitFor();
  await ap.getByRole('button', { name: 'Send the application' }).click();
  await ap.getByText('Name your organisation').waitFor();
  t.check(await ap.getByText('Choose the kind of partner you would be').isVisible(), 'the public application page names the missing fields beside them');
  const escaped = (text) => text.replace(/[.*+?^$()|[\]{}\\]/g, '\\$&');
  const labelled = (text) => new RegExp(`^${escaped(text)}( \\*)?$`);
  await ap.getByLabel(labelled('Organisation')).fill(organisation);
  await ap.getByLabel(labelled('Contact name')).fill('Ola Applicant');
  await ap.getByLabel(labelled('Contact email')).fill(`ola.${stem.toLowerCase()}@applicant-${stem.toLowerCase()}.test`);
  await choose(ap, ap, 'Kind of partner', 'Distributor');
  for (const q of publicForm.questions) {
    if (q.options?.length) await choose(ap, ap, escaped(q.label), q.options[0]);
    else await ap.getByLabel(labelled(q.label)).fill(q.key === 'why' ? 'We sell to 300 schools in the north' : `Answer to ${q.key}`);
  }
  await t.axe(ap, 'public application page');
  await ap.getByRole('button', { name: 'Send the application' }).click();
  await ap.getByRole('status').filter({ hasText: 'Application received' }).waitFor();
  t.check(true, 'the public application page takes the application');
  await t.shot(ap, 'public-application-sent');
  await applicant.context.close();

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Applications' }).click();
  await page.getByRole('heading', { level: 1, name: 'Applications' }).waitFor();
  await page.getByRole('link', { name: organisation }).click();
  await page.getByRole('heading', { level: 1, name: organisation }).waitFor();
  const answersTable = page.getByRole('table', { name: 'Answers' });
  const whyRow = answersTable.getByRole('row', { name: /Why do you want to partner with us/ });
  t.check((await whyRow.innerText()).includes('We sell to 300 schools in the north'), 'the applicant\'s answer shows beside its question');
  await t.axe(page, 'application detail');
  await page.getByRole('button', { name: 'Approve' }).click();
  await page.getByRole('dialog', { name: `Approve ${organisation}?` }).getByRole('button', { name: 'Approve' }).click();
  await secret.waitFor();
  const appLink = (await secret.innerText()).trim();
  t.check(appLink.startsWith(`${t.base}/accept-invitation#token=`), 'approving shows the applicant\'s invitation link once');
  await page.getByRole('button', { name: 'I have stored it' }).click();
  await secret.waitFor({ state: 'detached' });
  await page.getByRole('link', { name: organisation }).first().waitFor();
  t.check(/approved/i.test(await page.locator('main').innerText()), 'the application shows approved, with a link to its partner');
  await t.shot(page, 'application-approved');
  const apps = await t.call(ownerToken, 'GET', '/api/applications?status=approved&limit=100');
  const app = apps.data.find((a) => a.organisation === organisation);
  const partner = app?.partnerId ? await t.call(ownerToken, 'GET', `/api/partners/${app.partnerId}`) : null;
  t.check(app?.status === 'approved' && partner?.name === organisation && partner.type === 'distributor',
    `the API holds the application approved and its partner ${partner?.name} (${partner?.type}, ${partner?.status})`);
  await page.getByRole('link', { name: 'Open the partner created for this application' }).click();
  await page.getByRole('heading', { level: 1, name: organisation }).waitFor();
  await page.getByLabel(/^Onboarding \d+% done/).or(page.getByText('Not started.')).first().waitFor();
  users = await rows(page, `Users of ${organisation}`, (r) => r.length === 1 && r[0].includes('@'));
  t.check(users.length === 1 && /invited/i.test(users[0]) && /partner admin/i.test(users[0]), `the applicant is invited as its partner admin: ${JSON.stringify(users)}`);

  // The application form: its address to share, and its questions in the editor.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Applications' }).click();
  await page.getByRole('heading', { level: 1, name: 'Applications' }).waitFor();
  t.check(await page.getByText(`${t.base}/apply/${slug}`, { exact: true }).isVisible(), 'the applications page shows the public application page\'s address');
  await page.getByRole('button', { name: 'Edit the application form' }).click();
  const formDialog = page.getByRole('dialog', { name: 'Application form' });
  const questionInputs = formDialog.getByRole('textbox', { name: /^Question/ });
  await questionInputs.first().waitFor();
  const asked = await questionInputs.evaluateAll((els) => els.map((e) => e.value));
  t.check(asked.includes('Why do you want to partner with us?'), `the application form's editor holds the question applicants answered (${asked.length} question(s))`);
  await t.axe(page, 'application form editor');
  await formDialog.getByRole('button', { name: 'Cancel' }).click();
  await formDialog.waitFor({ state: 'detached' });

  // The onboarding checklist: a step added in the console reaches the API; the spec puts the old one back.
  const template = await t.call(ownerToken, 'GET', '/api/onboarding-template');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Onboarding checklist' }).click();
  await page.getByRole('heading', { level: 1, name: 'Onboarding checklist' }).waitFor();
  await page.getByRole('button', { name: 'Add a step' }).click();
  const step = page.getByRole('group', { name: `Step ${String(template.items.length + 1)}` });
  await step.getByRole('textbox', { name: /^Title/ }).fill(`${stem} kick-off call`);
  await step.getByRole('textbox', { name: /^Due after/ }).fill('3');
  await page.getByRole('button', { name: 'Save checklist' }).click();
  await page.getByText('Onboarding checklist saved').waitFor();
  const saved = await t.call(ownerToken, 'GET', '/api/onboarding-template');
  const last = saved.items[saved.items.length - 1];
  t.check(saved.items.length === template.items.length + 1 && last?.title === `${stem} kick-off call` && last.dueInDays === 3,
    `the step added in the console is the checklist's last (${String(last?.title)}, due after ${String(last?.dueInDays)} days)`);
  await t.axe(page, 'onboarding checklist');
  await t.shot(page, 'onboarding-checklist');
  await t.call(ownerToken, 'PUT', '/api/onboarding-template', { items: template.items });

  await context.close();
}
