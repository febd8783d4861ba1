// White-label portals on their own hosts, in the browser. The browser maps *.example.test to
// a TLS front on 127.0.0.1 (browser.mjs's host-resolver rule; a self-signed certificate the
// contexts here accept), which passes requests to partnerd with their Host, as a production
// proxy does. A DNS server in this process holds the TXT records; partnerd verifies the hosts
// with it (run.sh points PARTNERD_DNS_RESOLVER here). Then: the verified host shows the login
// and the portal in the tenant's colours, logo and favicon with no tenant field, and a
// partner's co-branded host its logo beside the tenant's; an unverified or unknown host gets
// 421 and nothing of the tenant; a page on a verified origin calls the API cross-origin (the
// preflight granted), a page on another origin is refused by the browser until an operator
// lists that origin on the Domains page, and refused again once it is removed.
import dgram from 'node:dgram';
import http from 'node:http';
import https from 'node:https';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unique } from '../lib.mjs';
import { png } from '../png.mjs';

export const title = 'white-label hosts: a verified host in the tenant\'s brand, unverified hosts refused, CORS for verified and listed origins only';

const dnsPort = Number(process.env.E2E_DNS_PORT ?? 18053);
const tlsPort = Number(process.env.E2E_TLS_PORT ?? 18443);
const foreignPort = Number(process.env.E2E_FOREIGN_PORT ?? 18081);

/** A DNS server on UDP that answers TXT questions from records (name → value), NXDOMAIN else. */
function startDNS(records) {
  const sock = dgram.createSocket('udp4');
  sock.on('message', (q, rinfo) => {
    if (q.length < 12) return;
    let i = 12;
    const labels = [];
    while (i < q.length && q[i] !== 0) {
      labels.push(q.subarray(i + 1, i + 1 + q[i]).toString('ascii'));
      i += q[i] + 1;
    }
    const qtype = q.readUInt16BE(i + 1);
    const question = q.subarray(12, i + 5);
    const name = labels.join('.').toLowerCase();
    const value = records.get(name);
    const answer = value !== undefined && qtype === 16;
    const head = Buffer.alloc(12);
    q.copy(head, 0, 0, 2); // id
    head.writeUInt16BE(0x8400 | (q.readUInt16BE(2) & 0x0100) | (value === undefined ? 3 : 0), 2); // QR AA RD, NXDOMAIN
    head.writeUInt16BE(1, 4);
    head.writeUInt16BE(answer ? 1 : 0, 6);
    const parts = [head, question];
    if (answer) {
      const txt = Buffer.from(value, 'ascii');
      const rr = Buffer.alloc(12);
      rr.writeUInt16BE(0xc00c, 0); // the question's name
      rr.writeUInt16BE(16, 2); // TXT
      rr.writeUInt16BE(1, 4); // IN
      rr.writeUInt32BE(30, 6);
      rr.writeUInt16BE(txt.length + 1, 10);
      parts.push(rr, Buffer.from([txt.length]), txt);
    }
    sock.send(Buffer.concat(parts), rinfo.port, rinfo.address);
  });
  return new Promise((resolve, reject) => {
    sock.once('error', reject);
    sock.bind(dnsPort, '127.0.0.1', () => { resolve(sock); });
  });
}

/** The TLS front of *.example.test: a self-signed certificate, requests passed to partnerd with their Host. */
function startFront(upstream) {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-front-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=example.test', '-addext', 'subjectAltName=DNS:*.example.test',
    '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
  const server = https.createServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (req, res) => {
    const up = http.request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (ur) => {
      res.writeHead(ur.statusCode ?? 502, ur.headers);
      ur.pipe(res);
    });
    up.on('error', () => { res.writeHead(502).end(); });
    req.pipe(up);
  });
  rmSync(dir, { recursive: true, force: true });
  return new Promise((resolve) => { server.listen(tlsPort, '127.0.0.1', () => { resolve(server); }); });
}

/** Another site, on another origin: a plain page. */
function startForeign() {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end('<!doctype html><html lang="en"><title>Another site</title><h1>Another site</h1></html>');
  });
  return new Promise((resolve) => { server.listen(foreignPort, '127.0.0.1', () => { resolve(server); }); });
}

/** Calls the API at api from inside page, with token; what the page's script sees. */
const fetchFrom = (page, api, token) => page.evaluate(async ([api, token]) => {
  try {
    const res = await fetch(api + '/api/me', { headers: { Authorization: `Bearer ${token}` }, cache: 'no-store' });
    return { status: res.status, body: await res.json() };
  } catch (e) {
    return { error: String(e) };
  }
}, [api, token]);

export default async function (t) {
  const records = new Map();
  const dns = await startDNS(records);
  const front = await startFront(new URL(t.base));
  const foreign = await startForeign();
  const contexts = [];
  try {
    const ownerToken = await t.token(t.owner);
    const raw = async (method, path, body) => {
      const res = await fetch(t.base + path, { method, body, headers: { Authorization: `Bearer ${ownerToken}`, 'Content-Type': 'application/octet-stream' } });
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
      return res.json();
    };

    // The tenant's brand: name, colours, a CSS variable, a logo and a favicon.
    const brandName = unique('Hub');
    const theme = { primary: '#7a1f5c', accent: '#0b6e4f', background: '#fffaf0', text: '#1a1a2e' };
    await t.call(ownerToken, 'PATCH', '/api/settings/branding', { name: brandName, theme, supportEmail: 'help@acme.example', cssVariables: [{ name: '--brand-radius', value: '6px' }] });
    await raw('PUT', '/api/settings/branding/logo', png(48, [122, 31, 92]));
    const brand = await raw('PUT', '/api/settings/branding/favicon', png(32, [11, 110, 79]));

    // A partner with its co-brand logo and a partner admin.
    const partner = await t.call(ownerToken, 'POST', '/api/partners', { name: unique('Cobrand Partner'), type: 'reseller' });
    await raw('PUT', `/api/partners/${partner.id}/branding/logo`, png(40, [200, 120, 0]));
    const email = `${unique('hosts').replace(/\s+/g, '-').toLowerCase()}@partner.test`;
    const password = 'hosts-pass-' + Math.random().toString(36).slice(2);
    const user = await t.call(ownerToken, 'POST', `/api/partners/${partner.id}/users`, { email, name: 'Hana Host', roles: ['partner_admin'] });
    await t.call(null, 'POST', '/api/auth/accept-invitation', { token: user.invitation.token, password });

    // Three hosts: the tenant's portal and the partner's, verified through DNS; one never.
    const add = (host, partnerId) => t.call(ownerToken, 'POST', '/api/domains', { host, ...(partnerId ? { partnerId } : {}) });
    const portal = await add('partners.example.test');
    const cobrand = await add('co.example.test', partner.id);
    await add('pending.example.test');
    for (const d of [portal, cobrand]) {
      records.set(d.record.name, d.record.value);
      await t.call(ownerToken, 'POST', `/api/domains/${d.id}/verify`);
    }
    for (const d of [portal, cobrand]) {
      let status = '';
      for (let i = 0; i < 60 && status !== 'verified'; i++) {
        status = (await t.call(ownerToken, 'GET', `/api/domains/${d.id}`)).status;
        if (status !== 'verified') await new Promise((r) => setTimeout(r, 500));
      }
      t.check(status === 'verified', `${d.host} is verified through the DNS server (${status})`);
    }

    // The verified host's login: the tenant's name, logo, favicon and colours; no tenant field.
    const { page, context } = await t.newPage({ label: 'branded portal', contextOptions: { ignoreHTTPSErrors: true } });
    await page.goto('https://partners.example.test/login');
    await page.getByRole('heading', { level: 1, name: `Sign in to ${brandName}` }).waitFor();
    // The logo may still be on its way when the heading shows (a loaded machine): give it time.
    await page.waitForFunction(() => {
      const img = document.querySelector('[data-testid="brand-logos"] img');
      return img instanceof HTMLImageElement && img.complete && img.naturalWidth > 0;
    }, null, { timeout: 15_000 }).catch(() => {});
    const look = await page.evaluate(() => {
      const button = [...document.querySelectorAll('button')].find((b) => b.textContent === 'Sign in');
      const logo = document.querySelector('[data-testid="brand-logos"] img');
      return {
        title: document.title,
        icon: document.querySelector('link[rel="icon"]')?.getAttribute('href'),
        button: button ? getComputedStyle(button).backgroundColor : '',
        body: getComputedStyle(document.body).backgroundColor,
        text: getComputedStyle(document.body).color,
        radius: getComputedStyle(document.documentElement).getPropertyValue('--brand-radius').trim(),
        logo: logo ? { src: logo.getAttribute('src'), alt: logo.getAttribute('alt'), loaded: logo.complete && logo.naturalWidth === 48 } : null,
        tenantField: document.querySelectorAll('input').length,
      };
    });
    t.check(look.title === brandName, `the tab is titled with the brand (${look.title})`);
    t.check(look.icon === brand.favicon.url, `the favicon is the tenant's (${look.icon})`);
    const icon = await page.evaluate(async (u) => {
      const r = await fetch(u);
      return `${r.status} ${r.headers.get('content-type') ?? ''}`;
    }, brand.favicon.url);
    t.check(icon === '200 image/png', `the favicon is served on the host (${icon})`);
    t.check(look.logo?.src === brand.logo.url && look.logo.alt === brandName && look.logo.loaded, `the tenant's logo is shown (${JSON.stringify(look.logo)})`);
    t.check(look.button === 'rgb(122, 31, 92)', `the sign-in button is the primary colour (${look.button})`);
    t.check(look.body === 'rgb(255, 250, 240)' && look.text === 'rgb(26, 26, 46)', `background and text are the brand's (${look.body}, ${look.text})`);
    t.check(look.radius === '6px', `the brand's CSS variable is set (${look.radius})`);
    t.check(look.tenantField === 2 && (await page.getByLabel('Tenant').count()) === 0, 'the login form asks no tenant: the host names it');
    await t.axe(page, '[portal host] branded login');
    await t.shot(page, 'white-label-login');

    // The partner's co-branded host: both logos; sign-in without a tenant lands on the portal.
    await page.goto('https://co.example.test/login');
    await page.getByRole('img', { name: 'Partner logo' }).waitFor();
    t.check(await page.getByRole('img', { name: brandName }).isVisible(), 'the co-branded login shows the tenant\'s logo beside the partner\'s');
    await page.getByLabel(/^Email/).fill(email);
    await page.getByLabel(/^Password/).and(page.locator('input')).fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: /^Welcome/ }).waitFor();
    t.check(new URL(page.url()).pathname === '/portal', `the partner lands on the portal of the co-branded host (${page.url()})`);
    const banner = page.getByRole('banner');
    t.check(await banner.getByRole('img', { name: `${brandName}: home` }).isVisible() && await banner.getByRole('img', { name: 'Partner logo' }).isVisible(),
      'the portal\'s header shows the tenant\'s logo and the partner\'s');
    await t.axe(page, '[portal host] co-branded portal');
    await t.shot(page, 'white-label-portal');
    await context.close();

    // Hosts that are not verified: a plain 421, nothing of the tenant. (A context of its own:
    // the refusals below are logged by the browser, as they should be.)
    const bare = await t.browser.newContext({ ignoreHTTPSErrors: true });
    contexts.push(bare);
    const other = await bare.newPage();
    for (const host of ['pending.example.test', 'nobody.example.test']) {
      const res = await other.goto(`https://${host}/login`);
      const text = await other.locator('body').innerText();
      t.check(res?.status() === 421 && !text.includes(brandName) && (await other.locator('img').count()) === 0,
        `${host} answers ${res?.status()} without the tenant's page (${JSON.stringify(text.slice(0, 60))})`);
    }

    // CORS: the API on the installation's own host, called from pages on other origins.
    const api = 'https://app.example.test';
    const fromVerified = await bare.newPage();
    await fromVerified.goto('https://partners.example.test/api/branding');
    const granted = await fetchFrom(fromVerified, api, ownerToken);
    t.check(granted.status === 200 && granted.body?.email === t.owner.email,
      `a page on the verified origin calls the API cross-origin, its preflight granted (${JSON.stringify(granted).slice(0, 120)})`);
    const refusedUnverified = await fetchFrom(other, api, ownerToken); // on https://nobody.example.test
    t.check(Boolean(refusedUnverified.error), `a page on an unverified host is refused by the browser (${JSON.stringify(refusedUnverified)})`);
    const site = await bare.newPage();
    const foreignOrigin = `http://localhost:${foreignPort}`;
    await site.goto(foreignOrigin + '/');
    const refused = await fetchFrom(site, api, ownerToken);
    t.check(Boolean(refused.error), `a page on another origin is refused by the browser (${JSON.stringify(refused)})`);

    // An operator lists that origin on the Domains page: granted; removed: refused again.
    const { page: consolePage, context: consoleContext } = await t.newPage({ label: 'allowed origins' });
    await t.signIn(consolePage, t.owner);
    await consolePage.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Domains' }).click();
    const origins = consolePage.getByRole('textbox', { name: 'Origins' });
    await origins.waitFor();
    await origins.fill('null');
    await consolePage.getByRole('button', { name: 'Save origins' }).click();
    await consolePage.getByText(/null: an origin like/).waitFor();
    t.check(true, 'the Domains page shows why `null` is refused beside the field');
    await origins.fill(foreignOrigin);
    await consolePage.getByRole('button', { name: 'Save origins' }).click();
    await consolePage.getByText('Allowed origins saved').waitFor();
    const listed = await t.call(ownerToken, 'GET', '/api/settings/cors-origins');
    t.check(listed.origins.length === 1 && listed.origins[0] === foreignOrigin, `the origin is listed (${JSON.stringify(listed)})`);
    await t.axe(consolePage, '[console] domains page with allowed origins');
    await t.shot(consolePage, 'allowed-origins');
    const nowGranted = await fetchFrom(site, api, ownerToken);
    t.check(nowGranted.status === 200, `the listed origin's page now calls the API (${JSON.stringify(nowGranted).slice(0, 120)})`);
    await origins.fill('');
    await consolePage.getByRole('button', { name: 'Save origins' }).click();
    for (let i = 0; i < 20; i++) {
      if ((await t.call(ownerToken, 'GET', '/api/settings/cors-origins')).origins.length === 0) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const after = await fetchFrom(site, api, ownerToken);
    t.check(Boolean(after.error), `once removed, the origin is refused again at once (${JSON.stringify(after)})`);
    await consoleContext.close();
  } finally {
    for (const c of contexts) await c.close().catch(() => undefined);
    dns.close();
    front.close();
    foreign.close();
  }
}
