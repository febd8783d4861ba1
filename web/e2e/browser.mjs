// Launches Debian's chromium (never a Playwright-downloaded browser) with the flags this
// closed-network machine needs. CHROMIUM overrides the binary.
import { chromium } from 'playwright-core';

export const chromiumPath = process.env.CHROMIUM ?? '/usr/bin/chromium';

export function launch() {
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--no-sandbox', // we run as root in CI
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      // *.example.test (spec 58's custom domains) reach its TLS front on 127.0.0.1; no other
      // spec uses the reserved .test names.
      `--host-resolver-rules=MAP *.example.test 127.0.0.1:${process.env.E2E_TLS_PORT ?? '18443'}`,
    ],
  });
}
