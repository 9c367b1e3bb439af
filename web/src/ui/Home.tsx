// The inbox: every request waiting for a person, across all agents and
// sessions, oldest first (nearest deadline); below it what this page saw
// settle recently, with its outcome. On a phone the sessions list follows.
// Above it all, when hooks failed open while hookmap was down, a notice.
import { Card } from './Card.tsx';
import { useApp } from './context.ts';
import { MissedBanner } from './Missed.tsx';
import { SessionList } from './SessionList.tsx';

export function Home({ wide }: { wide: boolean }) {
  const { store } = useApp();
  store.attnRev.value;
  const now = store.clock.value;
  const waiting = store.waiting(now);
  const settled = store.recentlySettled(now);
  return (
    <>
      <MissedBanner />
      <section class="inbox" aria-labelledby="inbox-h">
        <h2 id="inbox-h">
          Waiting for you{' '}
          <span class="count" data-waiting={waiting.length}>
            {waiting.length}
          </span>
        </h2>
        {waiting.length === 0 ? <p class="empty">Nothing waits for you. Requests appear here the moment an agent asks.</p> : null}
        <div class="cards" aria-live="polite">
          {waiting.map((a) => (
            <Card key={a.id} a={a} />
          ))}
        </div>
        {settled.length ? (
          <>
            <h3 class="subhead">Just settled</h3>
            <div class="cards">
              {settled.map((a) => (
                <Card key={a.id} a={a} />
              ))}
            </div>
          </>
        ) : null}
      </section>
      {wide ? null : <SessionList />}
    </>
  );
}
