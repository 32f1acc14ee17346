// Opening the page in a fresh browser context while recording everything the page does
// that a test may want to forbid: requests, console errors, CSP violations, page errors.
/** A fresh context and page at `url`; `setup(context)` runs before the page loads (routes). */
export async function openPage(browser, url, setup = null) {
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 900 } });
  const requests = [];
  const problems = [];
  context.on('request', (r) => requests.push(r.url()));
  if (setup) await setup(context);
  const page = await context.newPage();
  page.on('console', (m) => {
    const text = m.text();
    if (m.type() === 'error' || /Content Security Policy|Trusted Type/i.test(text)) problems.push(`console ${m.type()}: ${text}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  // Test-side instrumentation (injected by the driver, not part of the page): the modes the
  // page passes through and the progress it shows.
  await page.addInitScript(() => {
    const w = window;
    w.__modes = [];
    w.__progress = [];
    new MutationObserver((records) => {
      for (const r of records) {
        const el = r.target;
        if (el.id === 'main' && r.attributeName === 'data-mode') w.__modes.push(el.dataset.mode);
        if (el.id === 'progress' && r.attributeName === 'data-bytes-done') w.__progress.push(Number(el.dataset.bytesDone));
      }
    }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-mode', 'data-bytes-done'] });
  });
  await page.goto(url);
  await page.waitForSelector('#main[data-mode="idle"]');
  return {
    page,
    context,
    requests,
    problems,
    /** Requests to anything but the page's own origin. */
    foreignRequests() {
      const origin = new URL(url).origin;
      return requests.filter((u) => !u.startsWith(origin + '/') && !u.startsWith('blob:' + origin + '/') && !u.startsWith('data:'));
    },
    async close() {
      await context.close();
    },
  };
}

/** Picks `file` with the file input and waits until the page is done or shows an error. */
export async function openFile(page, file, timeout = 120_000) {
  await resetRecording(page);
  await page.setInputFiles('#file-input', file);
  return waitForOutcome(page, timeout);
}

/** Forgets the modes and progress recorded so far. */
export async function resetRecording(page) {
  await page.evaluate(() => {
    window.__modes = [];
    window.__progress = [];
  });
}

/** Waits until the page has been 'running' and then settled on 'done' or 'error'. */
export async function waitForOutcome(page, timeout = 120_000) {
  await page.waitForFunction(
    () => {
      const m = window.__modes;
      return m.includes('running') && ['done', 'error'].includes(m[m.length - 1]);
    },
    null,
    { timeout },
  );
  return page.evaluate(() => document.getElementById('main').dataset.mode);
}

/** The overview's facts as {key: {text, value}} (value: the exact number or string shown). */
export async function overviewFacts(page) {
  return page.evaluate(() =>
    Object.fromEntries(
      [...document.querySelectorAll('#view-overview [data-fact]')].map((el) => [el.dataset.fact, { text: el.querySelector('dd').textContent, value: el.dataset.value }]),
    ),
  );
}

/** Clicks `selector` and returns the downloaded file's text and suggested name. The
 * report's exports are in the toolbar's Export menu: it is opened first. */
export async function downloadText(page, selector) {
  if ((await page.locator('#export-items').evaluate((m, sel) => m.hidden && m.querySelector(sel) !== null, selector).catch(() => false))) {
    await page.click('#export-button');
  }
  const [download] = await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), page.click(selector)]);
  const file = await download.path();
  return { name: download.suggestedFilename(), text: (await import('node:fs')).readFileSync(file, 'utf8') };
}

/** Shows view `id` by clicking its tab. */
export async function showTab(page, id) {
  await page.click(`#tab-${id}`);
  await page.waitForFunction((v) => !document.getElementById(`view-${v}`).hidden, id);
}

export function formatCount(n) {
  return Math.round(n).toLocaleString('en-US');
}
