#!/usr/bin/env node
// Regenerates the README's screenshots of the page: every view at 1440 and 800 px wide,
// on two corpus dumps when ../shared/corpus is there (s02, the static-map leak: VIEW-WIDTH.png,
// compared with its G1 twin last; the LeakCanary Android dump: leakcanary-VIEW-WIDTH.png),
// else on the sample dump the page ships. Needs the built page (npm run build) and Chromium
// (as the browser tests: /usr/bin/chromium or $CHROMIUM).
//
//   node scripts/screenshots.mjs [OUT_DIR]     # default docs/screenshots
import fs from 'node:fs';
import path from 'node:path';
import { launchChromium } from '../tests/e2e/helpers/browser.mjs';
import { CORPUS, REPO } from '../tests/e2e/helpers/paths.mjs';
import { startServer } from '../tests/e2e/helpers/server.mjs';

const out = path.resolve(process.argv[2] ?? path.join(REPO, 'docs', 'screenshots'));
const corpusDump = path.join(CORPUS, 'dumps', 's02_static_map_leak_serial.hprof.gz');
const DUMPS = fs.existsSync(corpusDump)
  ? [
      { prefix: '', file: corpusDump, baseline: path.join(CORPUS, 'dumps', 's02_static_map_leak_g1.hprof.gz') },
      { prefix: 'leakcanary-', file: path.join(CORPUS, 'android', 'leakcanary_leak_service_binder.hprof.gz'), baseline: null },
    ]
  : [{ prefix: '', file: path.join(REPO, 'www', 'sample.hprof.gz'), baseline: null }];
const WIDTHS = [1440, 800];
const HEIGHT = 900;

/** What each shot shows: the view, then what to do there before the picture. */
const SHOTS = [
  ['overview', async () => {}],
  ['histogram', async (page) => {
    await page.locator('#histogram-body .vrow[data-index="0"]').click();
    await page.waitForSelector('#histogram-instances table');
  }],
  ['leaks', async () => {}],
  ['suspects', async () => {}],
  ['consumers', async () => {}],
  ['threads', async (page) => {
    await page.waitForSelector('#threads-summary');
    // The biggest thread with a stack, open: its frames and what their locals hold.
    const row = page.locator('#threads-tree tr[data-kind="thread"][data-has-stack="true"]').first();
    if ((await row.count()) && (await row.getAttribute('aria-expanded')) === 'false') await row.click();
  }],
  ['waste', async (page) => {
    await page.waitForSelector('#waste-panel > *');
  }],
  ['dominators', async (page) => {
    await page.waitForSelector('#dominator-tree tbody tr[data-address]');
    await page.locator('#dominator-tree tbody tr[data-address] button.toggle').first().click();
    await page.locator('#dominator-tree tbody tr[data-address] td.num').first().click();
    await page.waitForSelector('#tree-dock .dock-title');
  }],
  ['dominators-grouped', async (page) => {
    await page.check('#dominators-group');
    await page.waitForSelector('#dominator-groups tr[data-group]');
    await page.locator('#dominator-groups tr[data-depth="0"] button.toggle').first().click();
    await page.waitForSelector('#dominator-groups tr[data-depth="1"]');
    await page.locator('#dominator-groups tr[data-depth="1"]').first().click();
    await page.waitForSelector('#tree-dock .dock-title[data-group]');
  }, 'dominators'],
  ['classes', async (page) => {
    await page.waitForTimeout(800);
  }],
  ['treemap', async (page) => {
    await page.waitForFunction(() => Number(document.getElementById('treemap-canvas')?.dataset.items) > 0);
    await page.waitForTimeout(300);
  }],
  ['inspector', async (page) => {
    await page.waitForSelector('#inspector-body .details');
  }],
  ['path', async (page) => {
    await page.waitForSelector('#gc-path', { timeout: 60_000 });
  }],
  ['merge', async (page) => {
    await page.waitForSelector('#merge-paths');
    await page.waitForTimeout(500);
  }],
];

const server = await startServer();
const chromium = await launchChromium();
fs.mkdirSync(out, { recursive: true });
try {
  for (const { prefix, file: dump, baseline } of DUMPS) for (const width of WIDTHS) {
    const context = await chromium.browser.newContext({ viewport: { width, height: HEIGHT }, colorScheme: 'light' });
    const page = await context.newPage();
    await page.goto(server.url);
    await page.setInputFiles('#file-input', dump);
    await page.waitForSelector('#main[data-mode="done"]', { timeout: 120_000 });
    // The inspector, the path and the merged paths show the first leaking object (its path
    // view then offers the leak trace's path), else the first suspect's accumulation point.
    const leaking = await page.locator('details.leak-instance[data-object]').first().getAttribute('data-object', { timeout: 2_000 }).catch(() => null);
    const ap = leaking ?? (await page.locator('[data-accumulation-point]').first().getAttribute('data-accumulation-point', { timeout: 2_000 }).catch(() => null));
    for (const [name, prepare, tab] of SHOTS) {
      if ((name === 'inspector' || name === 'path' || name === 'merge') && ap) {
        await page.evaluate(([v, a]) => { location.hash = `#view=${v}&object=${a}`; }, [name, ap]);
      } else {
        await page.click(`#tab-${tab ?? name}`);
      }
      await page.waitForFunction((v) => !document.getElementById(`view-${v}`).hidden, tab ?? name);
      await prepare(page);
      await page.evaluate(() => window.scrollTo(0, 0));
      // A view that scrolls a row into view once its answer arrives does so first.
      await page.waitForTimeout(300);
      await page.evaluate(() => window.scrollTo(0, 0));
      const file = path.join(out, `${prefix}${name}-${width}.png`);
      await page.screenshot({ path: file });
      console.log(path.relative(REPO, file));
    }
    // Last, as it releases the dump: the comparison with a baseline of the same program.
    if (baseline && fs.existsSync(baseline)) {
      await page.click('#tab-compare');
      await page.setInputFiles('#compare-input', baseline);
      await page.waitForSelector('#compare-body .vrow:not([hidden])', { timeout: 120_000 });
      await page.evaluate(() => window.scrollTo(0, 0));
      const file = path.join(out, `${prefix}compare-${width}.png`);
      await page.screenshot({ path: file });
      console.log(path.relative(REPO, file));
    }
    await context.close();
  }
} finally {
  await chromium.close();
  await server.stop();
}
