// Administration and automation through the console: the owner creates a custom role with two
// permissions and invites an operator holding it (the link shown once); the invitee accepts in a
// browser of their own and sees exactly the pages the role allows, and the 403 view elsewhere;
// the audit log lists the role's and the user's creation; a task is created, completed and
// reopened in the UI (the API holds each state); completing it runs a playbook enabled in the UI,
// whose run shows its step timeline, and whose email the mail outbox lists and opens.
import { unique } from '../lib.mjs';

export const title = 'roles, users and invitations, menu by permission, audit log, tasks, playbook runs, mail outbox';

/** Waits until fn() is truthy (polling the API after a UI action); returns its last value. */
async function until(fn, what, timeout = 15_000) {
  const end = Date.now() + timeout;
  let last;
  while (Date.now() < end) {
    last = await fn();
    if (last) return last;
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Picks an option of a Mantine Select or MultiSelect by typing into it. */
async function pick(scope, page, label, text, option = text) {
  const input = scope.getByLabel(label).first();
  await input.click();
  await input.fill(text);
  await page.getByRole('option', { name: option }).first().click();
  // A MultiSelect keeps its list open for more; leaving the field closes it.
  await page.keyboard.press('Tab');
}

export default async function (t) {
  const ownerToken = await t.token(t.owner);
  const stamp = unique('x').split(' ')[1];
  const roleName = `e2e_task_viewer_${stamp}`;
  const email = `viewer-${stamp}@ops.test`;
  const personName = `Vera Viewer ${stamp}`;
  const password = 'viewer-pass-' + Math.random().toString(36).slice(2);

  const { page, context } = await t.newPage({ label: 'admin owner' });
  await t.signIn(page, t.owner);

  // A custom role with two permissions, picked from the catalogue.
  await page.goto(t.base + '/roles');
  await page.getByRole('heading', { level: 1, name: 'Roles' }).waitFor();
  await page.getByRole('button', { name: 'New role' }).click();
  const roleDialog = page.getByRole('dialog', { name: 'New role' });
  await roleDialog.getByRole('textbox', { name: 'Name', exact: true }).fill(roleName);
  await roleDialog.getByLabel('Description').fill('Reads tasks');
  await roleDialog.getByRole('checkbox', { name: 'profile:read', exact: true }).check();
  await roleDialog.getByRole('checkbox', { name: 'tasks:read', exact: true }).check();
  t.check((await roleDialog.getByText('(2 chosen)').count()) === 1, 'the permission picker counts the two chosen permissions');
  await t.shot(page, 'admin-role-new');
  await roleDialog.getByRole('button', { name: 'Create role' }).click();
  await roleDialog.waitFor({ state: 'hidden' });
  await page.getByRole('cell', { name: roleName, exact: true }).waitFor();
  const roles = await t.call(ownerToken, 'GET', '/api/roles?limit=100');
  const role = roles.data.find((r) => r.name === roleName);
  t.check(role && !role.builtIn && role.audience === 'operator' && [...role.permissions].sort().join(',') === 'profile:read,tasks:read',
    `the API holds the custom role with exactly its two permissions (${role?.permissions?.join(', ')})`);
  // A built-in role opens read-only.
  await page.getByRole('button', { name: 'View role owner' }).click();
  const ownerDialog = page.getByRole('dialog', { name: 'Role owner' });
  await ownerDialog.waitFor();
  t.check(await ownerDialog.getByRole('checkbox', { name: 'tasks:read', exact: true }).isDisabled()
    && (await ownerDialog.getByRole('button', { name: 'Save role' }).count()) === 0, 'a built-in role opens read-only');
  await ownerDialog.getByRole('button', { name: 'Close' }).last().click();

  // An operator holding the role; the invitation link is shown once.
  await page.goto(t.base + '/users');
  await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
  await page.getByRole('button', { name: 'Invite user' }).click();
  const invite = page.getByRole('dialog', { name: 'Invite a user' });
  await invite.getByLabel('Email').fill(email);
  await invite.getByLabel('Name').fill(personName);
  await pick(invite, page, 'Roles', roleName, `${roleName} (custom)`);
  await invite.getByRole('button', { name: 'Invite user' }).click();
  const secret = page.getByTestId('secret-once');
  await secret.waitFor();
  const link = (await secret.innerText()).trim();
  t.check(link.startsWith(`${t.base}/accept-invitation#token=pdt_`), `the invitation link is shown once: ${link.slice(0, 60)}…`);
  await t.shot(page, 'admin-invitation-link');
  await page.getByRole('button', { name: 'I have stored it' }).click();
  await secret.waitFor({ state: 'hidden' });
  t.check((await page.getByTestId('secret-once').count()) === 0, 'closed, the invitation link is gone from the page');
  await page.getByRole('link', { name: personName }).waitFor();
  const users = await t.call(ownerToken, 'GET', '/api/users?limit=100');
  const user = users.data.find((u) => u.email === email);
  t.check(user?.status === 'invited' && user.roles.join() === roleName, `the API holds the invited user with the role (${user?.status}, ${user?.roles})`);

  // The invitee accepts in a browser of their own and sees what the role allows, no more.
  const ownerMenu = await page.getByRole('navigation', { name: 'Main' }).getByRole('link')
    .evaluateAll((as) => as.map((a) => ({ name: a.textContent?.trim() ?? '', href: a.getAttribute('href') ?? '' })));
  const invitee = await t.newPage({ label: 'admin invitee' });
  await invitee.page.goto(link);
  await invitee.page.getByRole('heading', { name: 'Accept your invitation' }).waitFor();
  await invitee.page.getByLabel('New password').fill(password);
  await invitee.page.getByLabel('Repeat it').fill(password);
  await invitee.page.getByRole('button', { name: 'Accept and sign in' }).click();
  await invitee.page.getByRole('heading', { level: 1, name: /^Welcome/ }).waitFor();
  const inviteeMenu = await invitee.page.getByRole('navigation', { name: 'Main' }).getByRole('link')
    .evaluateAll((as) => as.map((a) => ({ name: a.textContent?.trim() ?? '', href: a.getAttribute('href') ?? '' })));
  const names = inviteeMenu.map((i) => i.name);
  t.check(names.includes('Dashboard') && names.includes('Tasks') && !names.some((n) => ['Users', 'Roles', 'Audit log', 'Mail outbox', 'Settings', 'Playbooks'].includes(n)),
    `the invitee's menu holds the pages of profile:read and tasks:read: ${names.join(', ')}`);
  await t.shot(invitee.page, 'admin-invitee-dashboard');
  for (const item of inviteeMenu) {
    await invitee.page.goto(t.base + item.href);
    await invitee.page.getByRole('heading', { level: 1 }).first().waitFor();
    t.check((await invitee.page.getByTestId('forbidden').count()) === 0, `[invitee] ${item.name} opens`);
  }
  const hidden = ownerMenu.filter((o) => !inviteeMenu.some((i) => i.href === o.href));
  for (const item of hidden) {
    await invitee.page.goto(t.base + item.href);
    await invitee.page.getByTestId('forbidden').waitFor();
  }
  t.check(hidden.some((h) => h.href === '/users'), `[invitee] each of ${hidden.length} pages outside the menu (${hidden.map((h) => h.name).join(', ')}) shows the 403 view`);
  await invitee.page.goto(t.base + '/users');
  await invitee.page.getByTestId('forbidden').waitFor();
  await t.shot(invitee.page, 'admin-invitee-403');
  t.check((await t.call(ownerToken, 'GET', `/api/users/${user.id}`)).status === 'active', 'the API shows the invitee active after accepting');

  // The audit log (as owner) lists the role's and the user's creation.
  for (const [action, id, field] of [['role.created', role.id, 'permissions'], ['user.created', user.id, 'roles']]) {
    await page.goto(`${t.base}/audit?action=${action}&targetId=${id}`);
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
    const row = page.getByRole('table', { name: 'Audit log' }).getByRole('row').filter({ hasText: action });
    await row.first().waitFor();
    const count = await row.count();
    await row.first().locator('summary').click();
    await row.first().getByText(field, { exact: true }).waitFor();
    t.check(count === 1 && await row.first().getByText(id, { exact: true }).isVisible(),
      `the audit log lists ${action} of …${id.slice(-8)} once, with its changed fields (${field}) and target`);
  }
  // Filters typed into the page reach the address, and the table follows them.
  await page.getByLabel('Action').fill('no.such_action');
  await page.getByText('No entries match these filters.').waitFor();
  t.check(new URL(page.url()).searchParams.get('action') === 'no.such_action', 'an audit filter with no match shows the empty state and lives in the address');
  await t.shot(page, 'admin-audit');

  // A playbook that emails when this spec's task is completed, enabled in the UI.
  const taskTitle = unique('Call back the distributor');
  const mailTo = `ops-${stamp}@example.test`;
  const pb = await t.call(ownerToken, 'POST', '/api/playbooks', {
    name: unique('Task done mail'),
    description: 'Emails the team when a task is done',
    graph: {
      trigger: { eventType: 'task.completed', condition: `event.payload.title == "${taskTitle}"` },
      nodes: [
        { id: 'done', kind: 'trigger', name: 'Task completed' },
        { id: 'notify', kind: 'send_email', name: 'Tell the team', sendEmail: {
          to: mailTo, subject: 'Done: {{.event.payload.title}}',
          text: 'The task {{.event.payload.title}} is done.\n', html: '<p>The task <b>{{.event.payload.title}}</b> is done.</p>' } },
      ],
      edges: [{ from: 'done', to: 'notify' }],
    },
  });
  await t.call(ownerToken, 'POST', `/api/playbooks/${pb.id}/publish`);
  await page.goto(`${t.base}/playbooks/${pb.id}`);
  await page.getByRole('heading', { level: 1, name: pb.name }).waitFor();
  await page.getByRole('table', { name: 'Versions' }).getByText('published', { exact: true }).waitFor();
  await page.getByRole('button', { name: 'Enable' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Enable' }).click();
  await page.getByRole('button', { name: 'Pause' }).waitFor();
  t.check((await t.call(ownerToken, 'GET', `/api/playbooks/${pb.id}`)).status === 'enabled', 'enabled in the UI, the API holds the playbook enabled');
  await page.getByRole('button', { name: 'Show the definition of v1' }).click();
  t.check((await page.getByRole('dialog').getByLabel('Definition of v1').innerText()).includes('"send_email"'), 'the published version\'s definition shows as JSON');
  await t.shot(page, 'admin-playbook');
  await page.keyboard.press('Escape');

  // A task created in the UI, assigned to the invitee, completed and reopened.
  await page.goto(t.base + '/tasks');
  await page.getByRole('heading', { level: 1, name: 'Tasks' }).waitFor();
  await page.getByRole('button', { name: 'New task' }).click();
  const taskDialog = page.getByRole('dialog', { name: 'New task' });
  await taskDialog.getByLabel('Title').fill(taskTitle);
  await taskDialog.getByLabel('Description').fill('Ask about the renewal');
  await taskDialog.getByLabel('Due date').fill('2030-03-15');
  await pick(taskDialog, page, 'Assignee', personName, `${personName} (${email})`);
  // Tabbing on may open the next picker's list; a click on the dialog's title closes it.
  await taskDialog.getByRole('heading', { name: 'New task' }).click();
  await taskDialog.getByRole('button', { name: 'Create task' }).click();
  await taskDialog.waitFor({ state: 'hidden' });
  await page.getByText(taskTitle, { exact: true }).waitFor();
  const findTask = async () => (await t.call(ownerToken, 'GET', `/api/tasks?assigneeUserId=${user.id}&limit=100`)).data.find((x) => x.title === taskTitle);
  const created = await findTask();
  t.check(created?.status === 'open' && created.dueDate === '2030-03-15' && created.assigneeUserId === user.id && created.source === 'manual',
    `the API holds the new task open, due 2030-03-15, assigned to the invitee (${created?.status}, ${created?.dueDate})`);

  await page.getByRole('button', { name: `Complete ${taskTitle}` }).click();
  await page.getByRole('button', { name: `Reopen ${taskTitle}` }).waitFor();
  const done = await until(async () => { const x = await findTask(); return x?.status === 'done' && x; }, 'the task done');
  t.check(!!done.completedAt, `completed in the UI, the API holds the task done (completed ${done.completedAt})`);

  // The invitee sees it under Mine, without the buttons tasks:write would give.
  await invitee.page.goto(t.base + '/tasks');
  await invitee.page.getByText('Mine', { exact: true }).click();
  await invitee.page.getByText(taskTitle, { exact: true }).waitFor();
  t.check(new URL(invitee.page.url()).searchParams.get('assigneeUserId') === user.id
    && (await invitee.page.getByRole('button', { name: 'New task' }).count()) === 0
    && (await invitee.page.getByRole('button', { name: `Reopen ${taskTitle}` }).count()) === 0,
    '[invitee] Mine lists the task assigned to them; without tasks:write no New task, Complete or Reopen');
  await invitee.context.close();

  await page.getByRole('button', { name: `Reopen ${taskTitle}` }).click();
  await page.getByRole('button', { name: `Complete ${taskTitle}` }).waitFor();
  const reopened = await until(async () => { const x = await findTask(); return x?.status === 'open' && x; }, 'the task open');
  t.check(!reopened.completedAt, 'reopened in the UI, the API holds the task open again');
  await t.shot(page, 'admin-tasks');

  // Completing it started the playbook: its run, step by step.
  const run = await until(async () => {
    const runs = await t.call(ownerToken, 'GET', `/api/playbook-runs?playbookId=${pb.id}`);
    return runs.data.find((r) => r.status === 'completed' || r.status === 'failed');
  }, 'the playbook run to end', 60_000);
  t.check(run.status === 'completed', `the task's completion ran the playbook: ${run.status}${run.error ? ` (${run.error})` : ''}`);
  await page.goto(`${t.base}/playbook-runs?playbookId=${pb.id}`);
  await page.getByRole('heading', { level: 1, name: 'Playbook runs' }).waitFor();
  await page.getByRole('row').filter({ hasText: pb.name }).getByRole('link').first().click();
  await page.getByRole('heading', { level: 1, name: `Run of ${pb.name}` }).waitFor();
  const steps = page.getByTestId('run-step');
  await steps.first().waitFor();
  const stepText = (await steps.allInnerTexts()).join(' | ');
  t.check(stepText.includes('Tell the team') && /completed/.test(stepText) && /Started/.test(stepText),
    `the run's page shows its step timeline with names and statuses: ${stepText.replace(/\s+/g, ' ').slice(0, 160)}`);
  t.check((await page.getByRole('button', { name: 'Cancel run' }).count()) === 0, 'a finished run offers no cancel');
  await t.shot(page, 'admin-playbook-run');
  await t.axe(page, 'a playbook run with its step timeline');

  // The email the playbook sent (invitations send none: the link is given by hand), in the outbox.
  await page.goto(t.base + '/mail');
  await page.getByRole('heading', { level: 1, name: 'Mail outbox' }).waitFor();
  await page.getByLabel('To', { exact: true }).fill(mailTo);
  await page.getByRole('link', { name: `Done: ${taskTitle}` }).click();
  await page.getByRole('heading', { level: 1, name: `Done: ${taskTitle}` }).waitFor();
  t.check((await page.getByTestId('mail-text').innerText()).includes(`The task ${taskTitle} is done.`), 'the message opens with its plain-text body');
  await page.getByText('HTML', { exact: true }).click();
  const frame = page.locator('iframe[title="HTML body"]');
  await frame.waitFor();
  t.check(await frame.getAttribute('sandbox') === '' && (await frame.contentFrame().locator('b').innerText()) === taskTitle,
    'the HTML body shows inside an empty sandbox, not in the page');
  t.check((await page.locator('main b').filter({ hasText: taskTitle }).count()) === 0, 'the HTML is not injected into the page');
  await t.shot(page, 'admin-mail-message');
  await context.close();
}
