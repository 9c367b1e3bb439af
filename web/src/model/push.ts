// Web Push from the inbox's side (engine/person/push/routes.ts): the service
// worker, the browser's PushSubscription registered with hookmap under the
// signed-in person, the device list, and "is anybody looking" (presence):
// with no visible inbox tab, a held request is pushed at once.
export interface DeviceRow {
  name: string;
  service: string;
  principal: string;
  created: string;
}

const JSON_POST = (body: unknown): RequestInit => ({
  method: 'POST',
  credentials: 'same-origin',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

/** Can this page receive pushes at all? (A secure context with a service worker and the Push API.) */
export function pushSupport(): { ok: true } | { ok: false; why: string } {
  if (typeof window === 'undefined') return { ok: false, why: 'no window' };
  if (!window.isSecureContext)
    return { ok: false, why: 'this address is not a secure context (https, or localhost): open the inbox over https to get notifications on this device' };
  if (!('serviceWorker' in navigator)) return { ok: false, why: 'this browser has no service workers' };
  if (!('PushManager' in window))
    return {
      ok: false,
      why:
        isIos() && !installed()
          ? 'on iPhone and iPad, notifications need the inbox on the home screen: Share, then Add to Home Screen, then open it from there'
          : 'this browser has no Push API',
    };
  return { ok: true };
}

export const isIos = () => /iPad|iPhone|iPod/.test(navigator.userAgent) || (navigator.platform === 'MacIntel' && navigator.maxTouchPoints > 1);
export const installed = () => window.matchMedia?.('(display-mode: standalone)').matches || (navigator as { standalone?: boolean }).standalone === true;

export async function registerWorker(): Promise<ServiceWorkerRegistration | undefined> {
  if (!('serviceWorker' in navigator)) return undefined;
  try {
    return await navigator.serviceWorker.register('/sw.js', { scope: '/' });
  } catch {
    return undefined;
  }
}

/** The subscription this browser holds now, if any. */
export async function currentSubscription(): Promise<PushSubscription | null> {
  const reg = await navigator.serviceWorker?.getRegistration('/');
  return (await reg?.pushManager.getSubscription()) ?? null;
}

/** Subscribe through the Push API and register the subscription with hookmap (named). */
export async function subscribe(name?: string): Promise<{ ok: true; device: DeviceRow } | { ok: false; why: string }> {
  const s = pushSupport();
  if (!s.ok) return s;
  const perm = Notification.permission === 'granted' ? 'granted' : await Notification.requestPermission();
  if (perm !== 'granted') return { ok: false, why: 'notifications are blocked for this site in the browser' };
  const reg = (await registerWorker()) ?? undefined;
  if (!reg) return { ok: false, why: 'the service worker could not be registered' };
  await navigator.serviceWorker.ready;
  const keyRes = await fetch('/push/key', { credentials: 'same-origin', cache: 'no-store' });
  if (!keyRes.ok) return { ok: false, why: `hookmap did not give its push key (${keyRes.status})` };
  const { publicKey } = await keyRes.json();
  let sub = await reg.pushManager.getSubscription();
  // a subscription made for another key (the home's keys were made anew) cannot be used
  if (sub && b64u(sub.options.applicationServerKey) !== publicKey) {
    await sub.unsubscribe();
    sub = null;
  }
  try {
    sub ??= await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: fromB64u(publicKey) });
  } catch (e) {
    return { ok: false, why: `the browser refused to subscribe: ${(e as Error).message}` };
  }
  const res = await fetch('/push/devices', JSON_POST({ subscription: sub.toJSON(), name }));
  const body = await res.json().catch(() => ({}));
  if (!res.ok) return { ok: false, why: body.detail ?? `hookmap refused the device (${res.status})` };
  return { ok: true, device: body.device };
}

export async function devices(): Promise<DeviceRow[]> {
  const res = await fetch('/push/devices', { credentials: 'same-origin', cache: 'no-store' });
  return res.ok ? ((await res.json()).devices as DeviceRow[]) : [];
}

export async function revoke(name: string): Promise<boolean> {
  return (await fetch('/push/devices/revoke', JSON_POST({ name }))).ok;
}

export async function test(name: string): Promise<string> {
  const res = await fetch('/push/test', JSON_POST({ name }));
  const body = await res.json().catch(() => ({}));
  if (!res.ok) return body.detail ?? `failed (${res.status})`;
  const r = body.results?.[0];
  return r?.ok ? 'sent' : `not sent: ${r?.detail ?? 'unknown'}`;
}

const seenHere = new Set<string>();

/** Say once that this tab showed a pending request's card (now, or when the tab next becomes visible). */
export function reportSeen(request: string): () => void {
  const say = () => {
    if (seenHere.has(request) || document.visibilityState !== 'visible') return;
    seenHere.add(request);
    void fetch('/push/seen', { ...JSON_POST({ request, via: 'inbox' }), keepalive: true }).catch(() => {});
  };
  say();
  document.addEventListener('visibilitychange', say);
  return () => document.removeEventListener('visibilitychange', say);
}

/** Say whether this tab is visible (the server pushes at once when no tab is). */
export function reportPresence(tab: string, visible: boolean): void {
  void fetch('/push/presence', { ...JSON_POST({ tab, visible }), keepalive: true }).catch(() => {});
}

function b64u(buf: ArrayBuffer | null): string {
  if (!buf) return '';
  let s = '';
  for (const b of new Uint8Array(buf)) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromB64u(s: string): Uint8Array<ArrayBuffer> {
  const bin = atob(s.replace(/-/g, '+').replace(/_/g, '/'));
  const out = new Uint8Array(new ArrayBuffer(bin.length));
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
