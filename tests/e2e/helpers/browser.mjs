// Headless Chromium for the tests: Debian's /usr/bin/chromium (or $CHROMIUM) driven by
// playwright-core, with no background networking. Playwright gives every launch a fresh
// temporary profile (--user-data-dir) of its own and deletes it on close.
import fs from 'node:fs';
import { chromium } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

export async function launchChromium() {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`Chromium not found at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM)`);
  }
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // CHROMIUM_EXTRA_ARGS (space-separated): e.g. V8 flags for a benchmark's A/B run.
    args: [...CHROMIUM_ARGS, ...(process.env.CHROMIUM_EXTRA_ARGS ?? '').split(' ').filter(Boolean)],
  });
  return {
    browser,
    async close() {
      await browser.close().catch(() => {});
    },
  };
}
