// Certifications through both faces. An operator creates a course in the console, adds one content
// item (a link shared with this spec's own partner), shows the course to that partner, writes a
// 2-question quiz (one single choice, one multiple choice) and publishes it. A partner user opens it
// under Learning, marks the item completed, fails once (attempts left shown, right answers never
// sent), passes, and sees the certificate with its expiry under "My certificates"; the console lists
// the attempts and the certificate. The editor, the publish dialog and the learner's pages pass axe.
import { unique } from '../lib.mjs';

export const title = 'certifications: build and publish a course, a partner studies, fails, passes and holds a certificate';

async function pick(page, scope, label, option) {
  const input = scope.getByLabel(new RegExp(`^${label}`)).and(page.locator('input:not([type=hidden])')).first();
  await input.click();
  await input.fill(option);
  await page.getByRole('option', { name: option, exact: true }).click();
  await input.blur();
}

const DAY = 86_400_000;

export default async function (t) {
  const ownerToken = await t.token(t.owner);
  const partner = await t.call(ownerToken, 'POST', '/api/partners', { name: unique('Learning Partner'), type: 'reseller' });
  const email = `${unique('learn').replace(/\s+/g, '-').toLowerCase()}@partner.test`;
  const password = 'learn-pass-' + Math.random().toString(36).slice(2);
  const user = await t.call(ownerToken, 'POST', `/api/partners/${partner.id}/users`, { email, name: 'Lee Learner', roles: ['partner_admin'] });
  const partnerToken = (await t.call(null, 'POST', '/api/auth/accept-invitation', { token: user.invitation.token, password })).accessToken;
  const itemTitle = unique('Deal registration guide');
  const item = await t.call(ownerToken, 'POST', '/api/content/items', {
    kind: 'link', title: itemTitle, url: 'https://example.com/guide', visibility: { partnerIds: [partner.id] },
  });

  // The operator builds the course.
  const op = await t.newPage({ label: 'certifications console' });
  const page = op.page;
  await t.signIn(page, t.owner);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Certifications' }).click();
  await page.getByRole('heading', { level: 1, name: 'Certifications' }).waitFor();
  const courseTitle = unique('Registration basics');
  await page.getByRole('button', { name: 'New course' }).click();
  const create = page.getByRole('dialog', { name: 'New course' });
  await create.getByLabel('Title').fill(courseTitle);
  await create.getByLabel('Valid for (days)').fill('30');
  await t.axe(page, '[console] new course dialog');
  await create.getByRole('button', { name: 'Add course' }).click();
  await page.getByRole('heading', { level: 1, name: courseTitle }).waitFor();
  const courseId = new URL(page.url()).pathname.split('/').pop();

  await pick(page, page, 'Add a content item', itemTitle);
  await page.getByRole('list', { name: 'Course items' }).getByText(itemTitle).waitFor();
  await pick(page, page, 'These partners', partner.name);
  await page.getByRole('button', { name: 'Add a question' }).click();
  await page.getByLabel('Question 1 text').fill('What does a deal registration protect?');
  await page.getByLabel('Question 1 option 1', { exact: true }).fill('The partner\'s claim on the customer');
  await page.getByLabel('Question 1 option 2', { exact: true }).fill('The customer\'s discount');
  await page.getByRole('button', { name: 'Add a question' }).click();
  await page.getByLabel('Several options may be right (multiple choice)').nth(1).check();
  await page.getByRole('group', { name: 'Question 2' }).getByRole('button', { name: 'Add an option' }).click();
  await page.getByLabel('Question 2 text').fill('Which fields does a registration need?');
  await page.getByLabel('Question 2 option 1', { exact: true }).fill('Customer company');
  await page.getByLabel('Question 2 option 2', { exact: true }).fill('Favourite colour');
  await page.getByLabel('Question 2 option 3', { exact: true }).fill('Deal amount');
  await page.getByLabel('Option 3 of question 2 is right', { exact: true }).check();
  await t.axe(page, '[console] course editor');
  await page.getByRole('button', { name: 'Save course' }).click();
  await page.getByText('Course saved').waitFor();
  let course = await t.call(ownerToken, 'GET', `/api/courses/${courseId}`);
  const rights = course.questions.map((q) => q.options.filter((o) => o.correct).map((o) => o.id).join(','));
  t.check(course.status === 'draft' && course.itemIds.join() === item.id && course.visibility.partnerIds.join() === partner.id
    && course.questions.length === 2 && !course.questions[0].multiple && course.questions[1].multiple && rights.join('|') === 'q1o1|q2o1,q2o3'
    && course.validityDays === 30 && course.passMark === 80,
  `the draft holds the item, the partner, and both questions with their right options (${rights.join('|')})`);

  await page.getByRole('button', { name: 'Publish', exact: true }).click();
  const publish = page.getByRole('dialog', { name: 'Publish this course?' });
  await t.axe(page, '[console] publish course dialog');
  await publish.getByRole('button', { name: 'Publish course' }).click();
  await publish.waitFor({ state: 'hidden' });
  await page.getByRole('button', { name: 'Archive' }).waitFor();
  course = await t.call(ownerToken, 'GET', `/api/courses/${courseId}`);
  t.check(course.status === 'published', `the course is published (${course.status})`);
  t.check(await page.getByLabel('Pass mark (%)').isDisabled(), 'a published course\'s pass mark cannot be edited');

  // The partner user studies and takes the quiz.
  const pp = await t.newPage({ label: 'learning portal' });
  const portal = pp.page;
  await t.signIn(portal, { email, password });
  await portal.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Learning' }).click();
  await portal.getByRole('heading', { level: 1, name: 'Learning' }).waitFor();
  await portal.getByRole('table', { name: 'My certificates' }).getByText('No certificate yet').waitFor();
  await portal.getByRole('table', { name: 'Courses' }).getByRole('link', { name: courseTitle }).click();
  await portal.getByRole('heading', { level: 1, name: courseTitle }).waitFor();
  await portal.getByTestId('quiz-locked').waitFor();
  t.check(await portal.getByRole('link', { name: `Open ${itemTitle}` }).getAttribute('href') === 'https://example.com/guide', 'the course lists its link to open');
  await t.axe(portal, '[portal] course before study');
  const seen = await t.call(partnerToken, 'GET', `/api/courses/${courseId}`);
  t.check(!JSON.stringify(seen).includes('"correct"'), 'the partner\'s course carries no right answers');
  await portal.getByRole('button', { name: `Mark ${itemTitle} completed` }).click();
  await portal.getByText('Completed', { exact: true }).waitFor();

  // A wrong attempt: the result says the score and the attempts left, not which answers were right.
  await portal.getByRole('radio', { name: 'The customer\'s discount' }).check();
  await portal.getByRole('checkbox', { name: 'Customer company' }).check();
  await t.axe(portal, '[portal] quiz');
  await portal.getByRole('button', { name: 'Submit answers' }).click();
  const result = portal.getByTestId('attempt-result');
  await result.getByText('Not passed', { exact: true }).waitFor();
  const failText = await result.innerText();
  t.check(failText.includes('Score 0%') && failText.includes('Attempts left: 2'), `the failed attempt shows its score and 2 attempts left (${failText.replace(/\s+/g, ' ')})`);
  await t.axe(portal, '[portal] failed attempt');

  // The right answers pass and issue a certificate valid 30 days.
  await portal.getByRole('radio', { name: 'The partner\'s claim on the customer' }).check();
  await portal.getByRole('checkbox', { name: 'Customer company' }).check();
  await portal.getByRole('checkbox', { name: 'Deal amount' }).check();
  await portal.getByRole('button', { name: 'Submit answers' }).click();
  await result.getByText('Passed', { exact: true }).waitFor();
  const passText = await result.innerText();
  t.check(passText.includes('Score 100%') && passText.includes('certificate is valid until'), `the pass shows the score and the certificate's expiry (${passText.replace(/\s+/g, ' ')})`);
  await t.shot(portal, 'learning-course-passed');
  const certs = (await t.call(partnerToken, 'GET', `/api/certificates?courseId=${courseId}`)).data;
  const cert = certs[0];
  const days = cert ? (Date.parse(cert.expiresAt) - Date.parse(cert.issuedAt)) / DAY : 0;
  t.check(certs.length === 1 && cert.status === 'active' && cert.score === 100 && Math.round(days) === 30, `one active certificate, valid 30 days (${certs.length}, ${days})`);

  await portal.getByRole('link', { name: 'All courses' }).click();
  const mine = portal.getByRole('table', { name: 'My certificates' }).getByRole('row').filter({ hasText: courseTitle });
  await mine.waitFor();
  const expiry = await mine.locator('time').nth(1).getAttribute('datetime');
  t.check(expiry === cert.expiresAt && (await mine.textContent()).includes('active'), `My certificates lists the certificate with its expiry (${expiry})`);
  await t.shot(portal, 'learning');
  await t.axe(portal, '[portal] learning with a certificate');
  await pp.context.close();

  // The console lists the attempts and the certificate.
  await page.reload();
  await page.getByRole('table', { name: 'Certificates' }).getByRole('row').filter({ hasText: partner.name }).filter({ hasText: 'Lee Learner' }).waitFor();
  t.check(true, 'the certificate names the partner user who earned it');
  const attempts = page.getByRole('table', { name: 'Quiz attempts' }).getByRole('row').filter({ hasText: partner.name });
  await attempts.nth(1).waitFor();
  t.check((await attempts.count()) === 2, 'the console lists both attempts and the certificate');
  await t.shot(page, 'certification-console');
  await t.axe(page, '[console] course with results');
  await op.context.close();
}
