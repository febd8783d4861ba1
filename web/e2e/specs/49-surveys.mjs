// CSAT and NPS surveys. The operator sends an NPS survey to a partner of the spec's own from the
// Surveys page; the link
// is read from the mail outbox; a browser with no session opens it, sees only the program's name
// and the question, answers with the keyboard and a comment, and is thanked; the API's scores count
// the answer; the link opened again says it was answered; a wrong token says the survey is not
// found. The console shows the partner's score and the comment; Settings turns surveys on resolved
// tickets on and off. The answer page passes axe on a desktop and a phone and never scrolls sideways.
import { unique } from '../lib.mjs';

export const title = 'surveys: send NPS, answer through the public link, scores, answered and unknown links';

async function pick(page, scope, label, option) {
  const input = scope.getByLabel(new RegExp(`^${label}`)).and(page.locator('input:not([type=hidden])')).first();
  await input.click();
  await input.fill(option);
  await page.getByRole('option', { name: option, exact: true }).click();
}

const phone = { width: 360, height: 740 };

/** The survey link the outbox holds for an address, as a path on this server. */
async function surveyLink(t, ownerToken, email, since) {
  for (let i = 0; i < 60; i++) {
    const list = await t.call(ownerToken, 'GET', `/api/mail/messages?purpose=survey&to=${encodeURIComponent(email)}&createdFrom=${encodeURIComponent(since)}&limit=5`);
    if (list.data.length > 0) {
      const msg = await t.call(ownerToken, 'GET', `/api/mail/messages/${list.data[0].id}`);
      const m = /#token=([A-Za-z0-9_-]+)/.exec(msg.text);
      if (m) return `/survey#token=${m[1]}`;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`no survey message reached the outbox for ${email}`);
}

/** Whether the page scrolls sideways. */
const scrollsSideways = (page) => page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);

export default async function (t) {
  const ownerToken = await t.token(t.owner);
  const tenant = await t.call(ownerToken, 'GET', '/api/tenant');
  const partner = await t.call(ownerToken, 'POST', '/api/partners', { name: unique('Survey Partner'), type: 'reseller' });
  const email = `${unique('survey').replace(/\s+/g, '-').toLowerCase()}@partner.test`;
  const user = await t.call(ownerToken, 'POST', `/api/partners/${partner.id}/users`, { email, name: 'Sam Survey', roles: ['partner_admin'] });
  await t.call(null, 'POST', '/api/auth/accept-invitation', { token: user.invitation.token, password: 'survey-pass-' + Math.random().toString(36).slice(2) });

  const from = new Date(Date.now() - 60_000).toISOString();

  // The operator sends an NPS survey to the partner from the console.
  const op = await t.newPage({ label: 'surveys console' });
  await t.signIn(op.page, t.owner);
  await op.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Surveys' }).click();
  await op.page.getByRole('heading', { level: 1, name: 'Surveys' }).waitFor();
  await op.page.getByRole('button', { name: 'Send a survey' }).click();
  const dialog = op.page.getByRole('dialog', { name: 'Send a survey' });
  await dialog.getByLabel('Kind').selectOption('nps');
  await pick(op.page, dialog, 'Add a partner', partner.name);
  await dialog.getByRole('list', { name: 'Partners chosen' }).getByText(partner.name).waitFor();
  await t.axe(op.page, '[console] send a survey dialog');
  await dialog.getByRole('button', { name: 'Send survey' }).click();
  await op.page.getByText('Survey sent to 1 recipient').waitFor();
  const sent = (await t.call(ownerToken, 'GET', `/api/surveys?partnerId=${partner.id}`)).data;
  t.check(sent.length === 1 && sent[0].kind === 'nps' && sent[0].source === 'bulk', `the NPS survey goes to the partner's one user (${sent.length})`);
  const link = await surveyLink(t, ownerToken, email, from);

  // A browser with no session answers on a phone.
  const pub = await t.newPage({ label: 'survey answer (phone)', viewport: phone });
  const page = pub.page;
  await page.goto(t.base + link);
  await page.getByRole('heading', { level: 1, name: tenant.name }).waitFor();
  const group = page.getByRole('radiogroup');
  await group.waitFor();
  const choices = await group.getByRole('radio').count();
  t.check(choices === 11, `NPS offers 0 to 10 (${choices} choices)`);
  t.check(!(await scrollsSideways(page)), 'the answer page does not scroll sideways on a phone');
  t.check(!(await page.getByRole('navigation').count()), 'the answer page shows no menu or other data');
  await t.shot(page, 'survey-answer-phone');
  await t.axe(page, '[public] survey answer page (phone)');

  // Submitting with no score names the missing choice; the keyboard picks one.
  await page.getByRole('button', { name: 'Send my answer' }).click();
  await page.getByText('Choose a score').waitFor();
  await group.getByRole('radio', { name: '0', exact: true }).focus();
  for (let i = 0; i < 9; i++) await page.keyboard.press('ArrowRight');
  t.check(await group.getByRole('radio', { name: '9', exact: true }).isChecked(), 'the arrow keys move the choice to 9');
  await page.getByLabel(/^Comment/).fill('Helpful partner team.');
  await page.getByRole('button', { name: 'Send my answer' }).click();
  await page.getByText('Your answer was recorded').waitFor();
  t.check(!(await page.evaluate(() => window.location.hash)), 'the token leaves the address once the answer is taken');
  await t.axe(page, '[public] survey thank-you (phone)');
  await pub.context.close();

  // The API counts the answer.
  const scores = await t.call(ownerToken, 'GET', `/api/survey-scores?kind=nps&groupBy=partner&from=${encodeURIComponent(from)}`);
  const mine = scores.groups.find((g) => g.group === partner.id);
  t.check(mine?.responses === 1 && mine.promoters === 1 && mine.score === 100, `the partner's NPS counts the promoter (${JSON.stringify(mine)})`);
  const listed = await t.call(ownerToken, 'GET', `/api/surveys?partnerId=${partner.id}&answered=true`);
  t.check(listed.data[0]?.score === 9 && listed.data[0].comment === 'Helpful partner team.', 'the answer and its comment are listed for the operator');

  // The console shows the score per partner and the answer with its comment.
  await op.page.reload();
  const row = op.page.getByRole('table', { name: 'Survey scores' }).getByRole('row').filter({ hasText: partner.name });
  await row.waitFor();
  const cells = await row.getByRole('cell').allTextContents();
  t.check(cells[1] === '100' && cells[2] === '1' && cells[3] === '1', `the console's NPS row reads score 100 of 1 response, 1 promoter (${cells.join(' | ')})`);
  await op.page.getByRole('table', { name: 'Survey invitations' }).getByText('Helpful partner team.').waitFor();
  await t.shot(op.page, 'survey-console');
  await t.axe(op.page, '[console] surveys');

  // The tenant setting that surveys resolved tickets.
  await op.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings', exact: true }).click();
  const toggle = op.page.getByRole('switch', { name: 'Send a CSAT survey when a ticket is resolved' });
  const wasOn = (await t.call(ownerToken, 'GET', '/api/tenant')).surveyOnResolve;
  await toggle.click({ force: true });
  await op.page.getByRole('button', { name: 'Save settings' }).click();
  await op.page.getByText('Settings saved').waitFor();
  t.check((await t.call(ownerToken, 'GET', '/api/tenant')).surveyOnResolve === !wasOn, 'the Settings page turns surveys on resolved tickets on and off');
  await t.call(ownerToken, 'PATCH', '/api/tenant', { surveyOnResolve: wasOn });
  await op.context.close();

  // The link again (desktop): already answered. A wrong token: not found.
  const again = await t.newPage({ label: 'survey answer (desktop)' });
  await again.page.goto(t.base + link);
  await again.page.getByRole('alert').filter({ hasText: 'Already answered' }).waitFor();
  t.check(!(await again.page.getByRole('radiogroup').count()), 'an answered link offers no choices');
  await t.axe(again.page, '[public] survey already answered (desktop)');
  await again.page.goto(t.base + '/survey#token=' + 'x'.repeat(43));
  await again.page.reload();
  await again.page.getByRole('alert').filter({ hasText: 'Survey not found' }).waitFor();
  t.check(true, 'a wrong token shows the not-found message');
  await t.axe(again.page, '[public] survey not found (desktop)');
  await again.context.close();

  // A CSAT survey answered on a desktop with the mouse: 1 to 5.
  const csatFrom = new Date().toISOString();
  await t.call(ownerToken, 'POST', '/api/surveys', { kind: 'csat', partnerIds: [partner.id] });
  const csatLink = await surveyLink(t, ownerToken, email, csatFrom);
  const desk = await t.newPage({ label: 'survey answer (desktop)' });
  await desk.page.goto(t.base + csatLink);
  const csat = desk.page.getByRole('radiogroup');
  await csat.waitFor();
  t.check((await csat.getByRole('radio').count()) === 5, 'CSAT offers 1 to 5');
  await t.axe(desk.page, '[public] survey answer page (desktop)');
  await t.shot(desk.page, 'survey-answer-desktop');
  await csat.getByText('4', { exact: true }).click();
  await desk.page.getByRole('button', { name: 'Send my answer' }).click();
  await desk.page.getByText('Your answer was recorded').waitFor();
  const csatScores = await t.call(ownerToken, 'GET', `/api/survey-scores?kind=csat&groupBy=partner&from=${encodeURIComponent(from)}`);
  const csatMine = csatScores.groups.find((g) => g.group === partner.id);
  t.check(csatMine?.responses === 1 && csatMine.satisfied === 1 && csatMine.score === 100, `the partner's CSAT counts the satisfied answer (${JSON.stringify(csatMine)})`);
  await desk.context.close();
}
