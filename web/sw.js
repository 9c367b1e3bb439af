// The inbox's service worker (scope /). Two jobs:
// 1. The shell (the page, its script, its stylesheet, the manifest, the
//    icons) from a cache, refreshed in the background, so a cold start on a
//    phone is fast. Nothing else is ever cached: no event, no API answer, no
//    token (the stream, /inbox/api, /push, /rules and the hooks go to the
//    network untouched).
// 2. Web Push: a held request arrives as an encrypted message (engine/person/push)
//    and is shown with its actions; a button press posts the one-time action
//    credential the message carried to /push/action, without opening the
//    page, and replaces the notification with the outcome. A later message
//    with the same tag (answered elsewhere, timed out) replaces it too.
const CACHE = 'hookmap-shell-__SHELL__';
const SHELL = ['/', '/inbox/assets/inbox.js', '/inbox/assets/inbox.css', '/manifest.webmanifest', '/inbox/assets/icon-192.png', '/inbox/assets/icon-512.png'];
const ICON = '/inbox/assets/icon-192.png';

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((c) => c.addAll(SHELL))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith('hookmap-shell-') && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const req = event.request;
  const url = new URL(req.url);
  if (req.method !== 'GET' || url.origin !== self.location.origin || !SHELL.includes(url.pathname)) return;
  event.respondWith(
    caches.open(CACHE).then(async (cache) => {
      const hit = await cache.match(url.pathname);
      const fresh = fetch(req)
        .then((res) => {
          if (res.ok) void cache.put(url.pathname, res.clone());
          return res;
        })
        .catch(() => undefined);
      if (hit) {
        event.waitUntil(fresh);
        return hit;
      }
      return (await fresh) ?? Response.error();
    }),
  );
});

/** What the message says, as a notification (actions cut to what the platform shows: Android shows two). */
function show(m) {
  const max = typeof Notification !== 'undefined' && Notification.maxActions ? Notification.maxActions : 2;
  const actions = Array.isArray(m.actions) ? m.actions.slice(0, max).map((a) => ({ action: a.action, title: a.title })) : [];
  return self.registration.showNotification(m.title || 'hookmap', {
    body: m.body || '',
    tag: m.tag || undefined,
    icon: ICON,
    badge: ICON,
    renotify: m.type === 'request',
    silent: m.type === 'settled',
    requireInteraction: m.type === 'request' && actions.length > 0,
    timestamp: Date.now(),
    actions,
    data: { type: m.type, request: m.request, session: m.session, credential: m.credential, expires: m.expires, url: m.url || '/' },
  });
}

self.addEventListener('push', (event) => {
  let m;
  try {
    m = event.data ? JSON.parse(event.data.text()) : undefined;
  } catch {
    m = undefined;
  }
  event.waitUntil(show(m && typeof m === 'object' ? m : { type: 'alert', title: 'hookmap', body: 'Something waits in the inbox', url: '/' }));
});

const DONE = { allow: 'Allowed from this device', deny: 'Denied from this device', always: 'Allowed, and a rule made for next time' };

/** A button: answer with the credential, then say how it went (in place of the request's notification). */
async function act(data, action, tag) {
  let text;
  try {
    const res = await fetch('/push/action', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ credential: data.credential, action, request: data.request }),
      credentials: 'omit',
    });
    const body = await res.json().catch(() => ({}));
    text = res.ok ? DONE[action] : `Not answered: ${body.detail || res.status}`;
  } catch {
    text = 'Not answered: hookmap did not answer (open the inbox)';
  }
  await self.registration.showNotification('hookmap', { body: text, tag, icon: ICON, silent: true, data: { type: 'settled', url: data.url } });
  return text;
}

async function open(url) {
  const all = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  for (const c of all) {
    if (new URL(c.url).origin === self.location.origin) {
      await c.focus();
      return c.navigate ? c.navigate(url).catch(() => undefined) : undefined;
    }
  }
  return self.clients.openWindow(url);
}

async function click(notification, action) {
  const data = notification.data || {};
  notification.close();
  if (action && data.credential && DONE[action]) return act(data, action, notification.tag);
  // a request's notification tapped: its person has seen it (the ladder's later steps are skipped), then the inbox opens
  if (data.type === 'request' && data.request)
    await fetch('/push/seen', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ request: data.request, via: 'push' }),
      credentials: 'same-origin',
    }).catch(() => undefined);
  await open(data.url || '/');
  return 'opened';
}

self.addEventListener('notificationclick', (event) => {
  event.waitUntil(click(event.notification, event.action));
});

// The inbox page (and the browser tests, which cannot press a notification's
// button) may ask for exactly what a press does: { type: 'notification-action', tag, action }.
self.addEventListener('message', (event) => {
  const d = event.data;
  if (!d || d.type !== 'notification-action' || typeof d.tag !== 'string') return;
  event.waitUntil(
    self.registration.getNotifications({ tag: d.tag }).then(async (list) => {
      const text = list.length ? await click(list[0], d.action) : 'no such notification';
      event.source?.postMessage({ type: 'notification-action-done', tag: d.tag, text });
    }),
  );
});
