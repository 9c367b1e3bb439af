// Notifications in the inbox: "Notify me" subscribes this device to Web
// Push (a notification with Allow / Deny that works with the page closed and
// the phone locked); where the Push API is not available (not a secure
// context) it falls back to a notification while this tab is open. Also the
// device list (#/devices), the install hint, and the tab's presence.
import { useSignalEffect } from '@preact/signals';
import { useEffect, useMemo, useState } from 'preact/hooks';
import {
  currentSubscription,
  devices as listDevices,
  installed,
  isIos,
  pushSupport,
  registerWorker,
  reportPresence,
  revoke,
  subscribe,
  test,
  type DeviceRow,
} from '../model/push.ts';
import { useApp } from './context.ts';

const NOTIFY_KEY = 'hookmap-inbox-notify';
const notifySupported = () => typeof window !== 'undefined' && 'Notification' in window;

/** `push`: this device is subscribed to Web Push; `on`: notifications only while this tab is open (no Web Push here). */
type NotifyMode = 'push' | 'on';

export function NotifyToggle() {
  const push = pushSupport();
  const [on, setOn] = useState(() => notifySupported() && Notification.permission === 'granted' && !!localStorage.getItem(NOTIFY_KEY));
  const [note, setNote] = useState<string | undefined>();
  useEffect(() => {
    if (push.ok) void currentSubscription().then((s) => s && setOn(true));
  }, []);
  if (!notifySupported()) return null;
  const mode = (m: NotifyMode) => {
    localStorage.setItem(NOTIFY_KEY, m);
    setOn(true);
  };
  const click = async () => {
    if (on) {
      localStorage.removeItem(NOTIFY_KEY);
      return setOn(false);
    }
    let why = push.ok ? undefined : push.why;
    if (push.ok) {
      const r = await subscribe();
      if (r.ok) {
        setNote(`This device gets notifications as "${r.device.name}" (Devices).`);
        return mode('push');
      }
      why = r.why;
    }
    // no Web Push here: notifications while this tab is open, and why
    const p = Notification.permission === 'granted' ? 'granted' : await Notification.requestPermission();
    if (p !== 'granted') return setNote(why ?? 'notifications are blocked for this site in the browser');
    mode('on');
    setNote(`Only while this tab is open: ${why}`);
  };
  return (
    <>
      <button type="button" class="btn btn-quiet" aria-pressed={on} data-notify={on ? 'on' : 'off'} onClick={click}>
        {on ? 'Notifications on' : 'Notify me'}
      </button>
      {note ? (
        <span class="muted notify-note" role="status" data-notify-note>
          {note}
        </span>
      ) : null}
    </>
  );
}

/** Without Web Push: a system notification when a request starts waiting while the page is not in front. */
export function useNotifications() {
  const { store } = useApp();
  const state = useMemo(() => ({ since: Date.now(), told: new Set<string>() }), []);
  useSignalEffect(() => {
    store.attnRev.value;
    // a device subscribed to Web Push gets the push (its service worker shows it), not a second one from this tab
    if (!notifySupported() || Notification.permission !== 'granted' || localStorage.getItem(NOTIFY_KEY) !== 'on') return;
    const now = Date.now();
    for (const a of store.waiting(now)) {
      if (state.told.has(a.id)) continue;
      state.told.add(a.id);
      const t = Date.parse(a.req!.time);
      // only what starts waiting now, not what the first replay brings back
      if (now - state.since < 3_000 || !(t > now - 60_000)) continue;
      if (!document.hidden && document.hasFocus()) continue;
      const n = new Notification(`${a.req!.agent} is waiting for you`, { body: String(a.req!.data?.prompt ?? ''), tag: a.id });
      n.onclick = () => {
        window.focus();
        location.hash = `#/s/${encodeURIComponent(a.session)}`;
        n.close();
      };
    }
  });
}

/** This tab tells hookmap while it is visible: nobody looking means a held request is pushed at once. */
export function usePresence() {
  useEffect(() => {
    void registerWorker();
    const tab = Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, '0')).join('');
    const say = () => reportPresence(tab, document.visibilityState === 'visible');
    say();
    const t = setInterval(() => document.visibilityState === 'visible' && say(), 15_000);
    document.addEventListener('visibilitychange', say);
    const gone = () => reportPresence(tab, false);
    window.addEventListener('pagehide', gone);
    return () => {
      clearInterval(t);
      document.removeEventListener('visibilitychange', say);
      window.removeEventListener('pagehide', gone);
    };
  }, []);
}

interface InstallEvent extends Event {
  prompt(): Promise<void>;
}

/** How to install the inbox as an app, shown where it is not installed. */
export function InstallHint() {
  const [ev, setEv] = useState<InstallEvent | undefined>();
  const [closed, setClosed] = useState(() => localStorage.getItem('hookmap-install-hint') === 'closed');
  useEffect(() => {
    const on = (e: Event) => {
      e.preventDefault();
      setEv(e as InstallEvent);
    };
    window.addEventListener('beforeinstallprompt', on);
    return () => window.removeEventListener('beforeinstallprompt', on);
  }, []);
  if (installed() || closed) return null;
  const close = () => {
    localStorage.setItem('hookmap-install-hint', 'closed');
    setClosed(true);
  };
  return (
    <div class="install-hint" role="note" data-install-hint>
      {ev ? (
        <>
          Install the inbox as an app: it opens like one and gets notifications.{' '}
          <button type="button" class="btn" onClick={() => void ev.prompt()}>
            Install
          </button>
        </>
      ) : isIos() ? (
        <>To get notifications on iPhone or iPad: tap Share, then Add to Home Screen, and open the inbox from there.</>
      ) : (
        <>Install the inbox as an app: your browser's menu, then Install app (or Add to Home screen on a phone).</>
      )}{' '}
      <button type="button" class="btn btn-quiet" aria-label="Hide this hint" onClick={close}>
        ×
      </button>
    </div>
  );
}

/** #/devices: which devices get notifications, with Test and Revoke. */
export function DevicesView() {
  const [rows, setRows] = useState<DeviceRow[] | undefined>();
  const [said, setSaid] = useState<Record<string, string>>({});
  const load = () => void listDevices().then(setRows);
  useEffect(load, []);
  const support = pushSupport();
  return (
    <section class="devices" aria-labelledby="devices-h">
      <h1 id="devices-h">Devices</h1>
      <p class="muted">
        {support.ok ? 'Each device that pressed "Notify me" gets a notification with Allow and Deny when a request waits (hookmap push list).' : support.why}
      </p>
      {rows === undefined ? null : rows.length === 0 ? (
        <p data-devices-empty>No device gets notifications yet.</p>
      ) : (
        <ul class="device-list">
          {rows.map((d) => (
            <li key={d.name} data-device={d.name}>
              <strong>{d.name}</strong>{' '}
              <span class="muted">
                {d.service} · by {d.principal} · since {d.created.slice(0, 10)}
              </span>{' '}
              <button type="button" class="btn btn-quiet" onClick={async () => setSaid({ ...said, [d.name]: await test(d.name) })}>
                Test
              </button>
              <button type="button" class="btn btn-quiet" onClick={async () => (await revoke(d.name)) && load()}>
                Revoke
              </button>
              {said[d.name] ? <span class="muted"> {said[d.name]}</span> : null}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
