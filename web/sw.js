// heapscope's service worker: after one visit the page loads and analyzes dumps with the
// network cut, reloads included. It keeps exactly the page's own files (the build lists
// them below and derives VERSION from their contents) and answers nothing else: requests
// to another origin, or for files not in the list, go to the network untouched.
//
// Updates never block anything: the browser checks sw.js in the background; a new version
// downloads its files into a cache of its own and then waits while an old page is open
// (so a running page never sees files of two versions). The page offers a reload, which
// activates it; the old cache is deleted then.
//
// This file is a template: the build (vite.config.ts) replaces the two placeholders.
const VERSION = self.__HEAPSCOPE_VERSION__;
/** The page's files, relative to this script ('./' is index.html). */
const FILES = self.__HEAPSCOPE_FILES__;
const PREFIX = 'heapscope-';
const CACHE = PREFIX + VERSION;
const SCOPE = self.registration.scope;
const INDEX = new URL('./', SCOPE).href;
const INDEX_HTML = new URL('./index.html', SCOPE).href;

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches.open(CACHE).then((cache) =>
      // 'reload': the network's copy, never an older one from the HTTP cache.
      cache.addAll(FILES.map((f) => new Request(new URL(f, SCOPE).href, { cache: 'reload', credentials: 'omit' }))),
    ),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith(PREFIX) && k !== CACHE).map((k) => caches.delete(k))))
      // The first visit's page is served from the cache from now on, without a reload.
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('message', (event) => {
  if (event.data && event.data.type === 'skip-waiting') self.skipWaiting();
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  // The page itself, with any query (?memory-limit=…) or fragment.
  const page = request.mode === 'navigate' && (url.origin + url.pathname === INDEX || url.origin + url.pathname === INDEX_HTML);
  const key = page ? INDEX : url.origin + url.pathname;
  event.respondWith(
    caches
      .open(CACHE)
      .then((cache) => cache.match(key))
      .then((cached) => cached || fetch(request)),
  );
});
