// The home view's notice that hooks failed open while hookmap was down
// (model/missed.ts): asked for when the page connects and after every
// reconnect (the moment hookmap is back is when there is news), dismissible
// until a newer firing is missed.
import { useSignalEffect } from '@preact/signals';
import { useState } from 'preact/hooks';
import { failedOpen } from '../model/api.ts';
import { DISMISSED_KEY, missedText, showMissed, type Missed } from '../model/missed.ts';
import { clockTime, dayTime } from './bits.tsx';
import { useApp } from './context.ts';

function dismissedLast(): string | null {
  try {
    return localStorage.getItem(DISMISSED_KEY);
  } catch {
    return null;
  }
}

export function MissedBanner() {
  const { conn } = useApp();
  const [missed, setMissed] = useState<Missed | undefined>();
  const [dismissed, setDismissed] = useState(dismissedLast);
  useSignalEffect(() => {
    if (conn.status.value !== 'live') return;
    let current = true;
    void failedOpen().then((m) => current && setMissed(m));
    return () => {
      current = false;
    };
  });
  if (!showMissed(missed, dismissed)) return null;
  const clock = (iso: string) => dayTime(Date.parse(iso), Date.now());
  return (
    <section class="missed" role="status" aria-label="Hooks hookmap missed" data-missed={missed.count}>
      <p>
        {missedText(missed, clock)}. See <code>hookmap doctor</code>.
      </p>
      <button
        type="button"
        class="btn btn-quiet"
        title={missed.last ? `last missed at ${clockTime(missed.last)}` : undefined}
        onClick={() => {
          const last = missed.last ?? new Date().toISOString();
          try {
            localStorage.setItem(DISMISSED_KEY, last);
          } catch {
            /* private mode: dismissed for this page only */
          }
          setDismissed(last);
        }}
      >
        Dismiss
      </button>
    </section>
  );
}
