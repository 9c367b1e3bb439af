// One session: who and where, its state, steer and stop where the session's
// live emitter declares those verbs (the relay roster, AEP-0003 §4.1:
// `control.cancel`, `x.<agent>.control.instruct`; hidden otherwise), the
// requests waiting in it as cards, its tokens and cost (model/usage.ts),
// then its live timeline.
import { useEffect, useState } from 'preact/hooks';
import { commandText } from '../model/outcome.ts';
import { isWaiting } from '../model/attention.ts';
import type { CmdState, SessionModel } from '../model/session-model.ts';
import { sessionLabel } from '../model/label.ts';
import { usageOf } from '../model/usage.ts';
import { AgentIcon, StatePill, ago, span, dayTime } from './bits.tsx';
import { Card } from './Card.tsx';
import { useApp, useCanControl } from './context.ts';
import { Timeline } from './Timeline.tsx';
import { UsageNote } from './ToolCall.tsx';

export function SessionView({ id, wide }: { id: string; wide: boolean }) {
  const { store, conn } = useApp();
  store.listRev.value;
  useEffect(() => {
    conn.openTimeline(id);
    return () => conn.openTimeline(undefined);
  }, [id]);
  const s = store.sessions.get(id);
  if (!s) {
    return (
      <section class="session-view">
        {wide ? null : (
          <a href="#/" class="back">
            ← Inbox
          </a>
        )}
        <p class="empty">Session {id} is not held by the relay (yet).</p>
      </section>
    );
  }
  return <SessionBody s={s} wide={wide} />;
}

function SessionBody({ s, wide }: { s: SessionModel; wide: boolean }) {
  const { store } = useApp();
  s.rev.value;
  store.attnRev.value;
  const now = store.clock.value;
  const st = store.stateOf(s, now);
  const label = sessionLabel(s);
  const total = usageOf(s).total;
  const waiting = [...s.attention].map((x) => store.attn.get(x)!).filter((a) => a && isWaiting(a, now));
  const recent = store.recentlySettled(now).filter((a) => a.session === s.id);
  return (
    <section class="session-view" aria-labelledby="session-h">
      {wide ? null : (
        <a href="#/" class="back">
          ← Inbox
        </a>
      )}
      <header class="session-head">
        <AgentIcon agent={s.agent} />
        <div>
          <h2 id="session-h">
            {s.agent}{' '}
            {label.project ? (
              <span class="session-project" title={label.from}>
                {label.project}
              </span>
            ) : null}
          </h2>
          <p class="session-sub">
            <StatePill state={st} />
            <span class="muted">
              {' '}
              session <code>{s.id}</code>
              {Number.isFinite(s.firstAt) ? ` · started ${dayTime(s.firstAt, now)} (${ago(s.firstAt, now)})` : ''}
              {st === 'ended' && Number.isFinite(s.firstAt) ? ` · lasted ${span(s.lastAt - s.firstAt)}` : ''}
              {s.model ? ` · ${s.model}` : ''}
            </span>
            {total ? <UsageNote u={total} class="usage muted" /> : null}
          </p>
        </div>
      </header>
      <Controls s={s} running={st === 'running' || st === 'waiting'} />
      {waiting.length || recent.length ? (
        <section class="cards" aria-label="Requests in this session">
          {[...waiting, ...recent].map((a) => (
            <Card key={a.id} a={a} showSession={false} />
          ))}
        </section>
      ) : null}
      <Timeline s={s} />
    </section>
  );
}

function Controls({ s, running }: { s: SessionModel; running: boolean }) {
  const { conn, store } = useApp();
  const control = useCanControl();
  store.attnRev.value;
  const accepts = conn.accepts(s.id);
  const [text, setText] = useState('');
  const [confirmStop, setConfirmStop] = useState(false);
  const [steerCmd, setSteerCmd] = useState<string | undefined>();
  const [stopCmd, setStopCmd] = useState<string | undefined>();
  const instruct = `x.${s.agent}.control.instruct`;
  const canSteer = control.can && !!accepts?.includes(instruct);
  const canStop = control.can && !!accepts?.includes('control.cancel');
  const steerState = steerCmd ? store.cmds.get(steerCmd) : undefined;
  const stopState = stopCmd ? store.cmds.get(stopCmd) : undefined;
  // nothing to offer (a stop only while it runs) and nothing sent: no empty box
  if (!canSteer && !(canStop && running) && !steerState && !stopState) return null;
  const openRun = store.openRun(s);
  return (
    <section class="controls" aria-label="Steer or stop this session">
      {canSteer ? (
        <form
          class="steer"
          onSubmit={(e) => {
            e.preventDefault();
            const t = text.trim();
            if (!t) return;
            const c = conn.send(instruct, { session: s.id, data: { text: t } });
            setSteerCmd(c.id);
            setText('');
          }}
        >
          <label for={`steer-${s.id}`}>Steer: an instruction the agent reads on its next turn</label>
          <div class="steer-row">
            <input id={`steer-${s.id}`} type="text" autocomplete="off" value={text} onInput={(e) => setText((e.target as HTMLInputElement).value)} />
            <button type="submit" class="btn" disabled={!text.trim()}>
              Send
            </button>
          </div>
        </form>
      ) : null}
      {steerState ? <CommandLine c={steerState} label="Instruction" /> : null}
      {canStop && running ? (
        confirmStop ? (
          <div class="stop-confirm" role="group" aria-label="Confirm stop">
            <span>Stop {openRun ? 'the running turn' : 'this session'}?</span>
            <button
              type="button"
              class="btn btn-deny"
              onClick={() => {
                const c = conn.send('control.cancel', {
                  session: s.id,
                  run: openRun,
                  data: { scope: openRun ? 'run' : 'session', reason: 'stopped from the inbox' },
                });
                setStopCmd(c.id);
                setConfirmStop(false);
              }}
            >
              Stop
            </button>
            <button type="button" class="btn btn-quiet" onClick={() => setConfirmStop(false)}>
              Keep going
            </button>
          </div>
        ) : (
          <button type="button" class="btn btn-deny btn-stop" onClick={() => setConfirmStop(true)}>
            Stop…
          </button>
        )
      ) : null}
      {stopState ? <CommandLine c={stopState} label="Stop" /> : null}
    </section>
  );
}

function CommandLine({ c, label }: { c: CmdState; label: string }) {
  const t = commandText(c);
  return (
    <p class={`outcome tone-${t.tone}`} role="status" aria-live="polite">
      {label}: {t.text}
    </p>
  );
}
