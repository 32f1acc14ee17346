// Serves the built page with `npx serve www` on a free localhost port (no configuration
// flags: the CSP and other headers come from www/serve.json, as for a user), in its own
// process group (setsid, via `detached`: npx -> sh -> node), and stops the whole group.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { REPO } from './paths.mjs';

async function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Serves `dir` (the built site, www/, unless a test serves a copy of it). */
export async function startServer(dir = 'www') {
  if (!fs.existsSync(path.resolve(REPO, dir, 'index.html'))) {
    throw new Error(`${path.resolve(REPO, dir)}/index.html not found: build the page first (npm run build)`);
  }
  const port = await freePort();
  const log = [];
  // detached: the child calls setsid(), so it leads a new process group (npx -> sh -> node)
  // that stop() can signal as a whole.
  const child = spawn(
    'npx',
    ['--no-install', 'serve', dir, '--listen', `tcp://127.0.0.1:${port}`, '--no-clipboard', '--no-port-switching'],
    { cwd: REPO, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_UPDATE_CHECK: '1' } },
  );
  child.stdout.on('data', (d) => log.push(String(d)));
  child.stderr.on('data', (d) => log.push(String(d)));
  const killGroup = () => {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      /* already gone */
    }
  };
  process.once('exit', killGroup);
  const url = `http://127.0.0.1:${port}/`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      const r = await fetch(url);
      if (r.ok) break;
    } catch {
      /* not up yet */
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      killGroup();
      throw new Error(`serve did not start on ${url}:\n${log.join('')}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    port,
    async stop() {
      killGroup();
      await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
      process.removeListener('exit', killGroup);
    },
  };
}
