// Checks of the page's sources and build that need no browser.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { REPO } from './helpers/paths.mjs';
import { OUTPUTS, generate } from '../../scripts/gen-types.mjs';

const read = (p) => fs.readFileSync(path.join(REPO, p), 'utf8');

function walk(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

function cspOf(html) {
  const m = html.match(/<meta http-equiv="Content-Security-Policy" content="([^"]+)">/);
  return m ? m[1] : null;
}

test('no page source can parse markup from strings (dump data is only ever text)', () => {
  const sinks = /\b(innerHTML|outerHTML|insertAdjacentHTML|document\.write|createContextualFragment|DOMParser|srcdoc|eval\s*\(|new Function\s*\()/;
  const offenders = walk(path.join(REPO, 'web/src'))
    .filter((f) => f.endsWith('.ts'))
    .flatMap((f) => fs.readFileSync(f, 'utf8').split('\n').map((line, i) => ({ f, i, line })))
    .filter(({ line }) => !line.trim().startsWith('//') && sinks.test(line));
  assert.deepEqual(offenders.map(({ f, i, line }) => `${path.relative(REPO, f)}:${i + 1}: ${line.trim()}`), []);
});

test('index.html has a strict CSP, identical to the header serve.json sends', () => {
  const meta = cspOf(read('web/index.html'));
  assert.ok(meta, 'CSP meta tag missing');
  const directives = Object.fromEntries(meta.split(';').map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k, v.join(' ')]));
  assert.equal(directives['default-src'], "'self'");
  assert.equal(directives['script-src'], "'self' 'wasm-unsafe-eval'");
  assert.equal(directives['style-src'], "'self'");
  assert.equal(directives['connect-src'], "'self'");
  assert.equal(directives['img-src'], "'self' data: blob:");
  assert.equal(directives['worker-src'], "'self' blob:");
  assert.equal(directives['object-src'], "'none'");
  assert.equal(directives['require-trusted-types-for'], "'script'");
  assert.doesNotMatch(meta, /https?:|\*|'unsafe-inline'|'unsafe-eval'/, 'no other origins, wildcards, inline code or eval');
  const header = JSON.parse(read('web/public/serve.json')).headers[0].headers.find((h) => h.key === 'Content-Security-Policy').value;
  assert.equal(header.replace(" frame-ancestors 'none';", ''), meta);
});

test('nothing in web/ refers to another origin (no external fonts, scripts, styles)', () => {
  const files = walk(path.join(REPO, 'web')).filter((f) => /\.(ts|html|css)$/.test(f) && !f.includes(`${path.sep}pkg${path.sep}`));
  const external = /\b(?:https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}|@import|url\(\s*['"]?(?:https?:|\/\/)/i;
  const offenders = files.flatMap((f) =>
    fs.readFileSync(f, 'utf8').split('\n').map((line, i) => ({ f, i, line })).filter(({ line }) => external.test(line) && !line.trim().startsWith('//')),
  );
  assert.deepEqual(offenders.map(({ f, i, line }) => `${path.relative(REPO, f)}:${i + 1}: ${line.trim()}`), []);
});

test('package.json pins exact versions', () => {
  const pkg = JSON.parse(read('package.json'));
  for (const [name, version] of Object.entries({ ...pkg.dependencies, ...pkg.devDependencies })) {
    assert.match(version, /^\d+\.\d+\.\d+$/, `${name}@${version} is not an exact version`);
  }
  assert.equal(pkg.devDependencies.vite, '8.3.8');
});

test('the built page (www/) carries the same CSP and inlines no script', { skip: !fs.existsSync(path.join(REPO, 'www/index.html')) && 'www/ not built' }, () => {
  const html = read('www/index.html');
  assert.equal(cspOf(html), cspOf(read('web/index.html')));
  assert.doesNotMatch(html.replace(/<script type="module" crossorigin src="\.\/assets\/[^"]+"><\/script>/, ''), /<script/i);
  assert.doesNotMatch(html, /\sstyle=/i);
  assert.ok(fs.existsSync(path.join(REPO, 'www/sample.hprof.gz')), 'sample dump copied into www/');
  // `npx serve www` reads its headers from the served folder.
  assert.equal(read('www/serve.json'), read('web/public/serve.json'));
  assert.match(html, /<link rel="manifest" href="\.\/manifest\.webmanifest">/);
  assert.ok(fs.existsSync(path.join(REPO, 'www/sw.js')), 'service worker written');
  const assets = fs.readdirSync(path.join(REPO, 'www/assets'));
  assert.ok(assets.some((a) => a.endsWith('.wasm')), 'wasm bundled as a file');
  for (const js of assets.filter((a) => a.endsWith('.js'))) {
    assert.doesNotMatch(fs.readFileSync(path.join(REPO, 'www/assets', js), 'utf8'), /data:application\/wasm|https?:\/\/(?!www\.w3\.org)/, js);
  }
});

test('the TypeScript types are generated from the current schemas (scripts/gen-types.mjs)', () => {
  for (const o of OUTPUTS) {
    const want = generate(o);
    const have = fs.existsSync(path.join(REPO, o.out)) ? read(o.out) : null;
    assert.ok(have === want, `${o.out} is stale: run node scripts/gen-types.mjs (it is generated from ${o.schema})`);
  }
});

test('the page uses the generated types for the report and the query answers', () => {
  const uses = (f, module) => new RegExp(`from '(\\.\\./)+generated/${module}'|from '\\./generated/${module}'`).test(read(f));
  assert.ok(uses('web/src/main.ts', 'report'));
  assert.ok(uses('web/src/lib/queries.ts', 'query'));
  assert.ok(uses('web/src/views/common.ts', 'report'));
});

test('the committed schemas are what the CLI derives from the Rust types', { skip: !fs.existsSync(path.join(REPO, 'target/release/heapscope')) && 'CLI not built' }, async () => {
  const { execFileSync } = await import('node:child_process');
  const cli = path.join(REPO, 'target/release/heapscope');
  assert.ok(execFileSync(cli, ['schema'], { encoding: 'utf8' }) === read('schema/report.schema.json'), 'schema/report.schema.json is stale: heapscope schema > schema/report.schema.json');
  assert.ok(execFileSync(cli, ['schema', '--queries'], { encoding: 'utf8' }) === read('schema/query.schema.json'), 'schema/query.schema.json is stale');
});
