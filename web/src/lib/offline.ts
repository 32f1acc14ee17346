// Offline use: registers the service worker (www/sw.js, written by the build from web/sw.js)
// that keeps the page's own files, so the page loads and analyzes dumps with the network
// cut. Registration waits for the page's load and never delays anything; if it fails (a
// browser without service workers, a file:// page) the page simply works online only.
//
// A new version found by the browser's background check installs beside the old one and
// waits; the page then offers a reload to switch (never on its own: a reload would drop
// the open dump). Only the production build registers it: Vite's dev server serves
// sources, which no list of built files describes.
import { h } from './dom';

export function registerServiceWorker(): void {
  if (!import.meta.env.PROD || !('serviceWorker' in navigator)) return;
  const start = (): void => {
    navigator.serviceWorker.register('./sw.js', { scope: './' }).then(watchForUpdates, (e: unknown) => {
      console.warn(`heapscope: offline use is not available (${e instanceof Error ? e.message : String(e)})`);
    });
  };
  if (document.readyState === 'complete') start();
  else window.addEventListener('load', start, { once: true });
}

function watchForUpdates(registration: ServiceWorkerRegistration): void {
  // Only an update has a controller already: the first install needs no reload.
  const waiting = (): void => {
    if (registration.waiting && navigator.serviceWorker.controller) offerUpdate(registration.waiting);
  };
  waiting();
  registration.addEventListener('updatefound', () => {
    const installing = registration.installing;
    installing?.addEventListener('statechange', () => {
      if (installing.state === 'installed') waiting();
    });
  });
}

let offered = false;

function offerUpdate(worker: ServiceWorker): void {
  if (offered) return;
  offered = true;
  const button = h('button', { type: 'button', class: 'secondary', id: 'update-button' }, 'Reload to update');
  button.addEventListener('click', () => {
    button.disabled = true;
    navigator.serviceWorker.addEventListener('controllerchange', () => window.location.reload(), { once: true });
    worker.postMessage({ type: 'skip-waiting' });
  });
  const note = h('p', { id: 'update', class: 'update', role: 'status' }, 'A new version of heapscope is ready. ', button);
  const footer = document.querySelector('footer.bottom');
  footer?.parentElement?.insertBefore(note, footer);
}
