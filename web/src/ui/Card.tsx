// One attention request as a card (AEP-0002 §5.3 attention.requested): what
// is asked, the agent's context, the time left before the agent's own dialog
// takes over (`expires_at`), and its answers: the request's options (allow /
// deny: keys a and d), deny with guidance text (key t; AEP-0008), or the
// form (AEP-0006). Answers go out as control.attention.respond (AEP-0004 §5);
// the card's state follows only what the stream confirms (model/outcome.ts).
import { useEffect, useRef, useState } from 'preact/hooks';
import { reportSeen } from '../model/push.ts';
import { checkForm, fieldsOf, type FieldInput } from '../model/forms.ts';
import { refusingOption, requestEffects } from '../../../engine/core/kernel/option-effects.ts';
import { optionKey, outcomeOf } from '../model/outcome.ts';
import { answerableHere, deadlineOf } from '../model/attention.ts';
import type { Attn } from '../model/session-model.ts';
import { formatDuration } from '../model/timeline.ts';
import { longId, sessionLabel } from '../model/label.ts';
import { AgentIcon, clockTime, sessionHref } from './bits.tsx';
import { useApp, useCanControl } from './context.ts';
import { FormFields } from './FormFields.tsx';
import { AlwaysPanel } from './Always.tsx';

const KIND_LABEL: Record<string, string> = {
  permission: 'Permission',
  form: 'Question',
  input: 'Input',
  auth: 'Sign-in',
  review: 'Review',
  other: 'Request',
};

export function Card({ a, showSession = true }: { a: Attn; showSession?: boolean }) {
  const { store, conn } = useApp();
  const control = useCanControl();
  store.attnRev.value; // re-render on every lifecycle change
  const now = store.clock.value;
  const [guidance, setGuidance] = useState('');
  const [inputs, setInputs] = useState<Record<string, FieldInput>>({});
  const [errors, setErrors] = useState<Map<string, string>>(new Map());
  const [always, setAlways] = useState(false);
  const rootRef = useRef<HTMLElement>(null);
  // a pending card shown in a visible tab: the person has seen it (its ladder's later steps are skipped; docs/escalation.md)
  const pendingId = a.req && !outcomeOf(store, a, store.clock.value).settled ? a.req.id : undefined;
  useEffect(() => (pendingId ? reportSeen(pendingId) : undefined), [pendingId]);
  const req = a.req;
  if (!req) return null;
  const session = store.sessions.get(a.session);
  session?.rev.value;
  const d = req.data ?? {};
  const kind = typeof d.kind === 'string' ? d.kind : 'other';
  const o = outcomeOf(store, a, now);
  const inFlight = o.phase === 'sending' || o.phase === 'accepted';
  const open = !o.settled;
  const canAnswer = open && control.can && answerableHere(a) && o.phase !== 'elsewhere';
  const options: { id: string; label: string }[] = Array.isArray(d.options) ? d.options.filter((x: any) => x && typeof x.id === 'string') : [];
  // free text is applied as the refusing option (AEP-0008) when the card has one (by the options' effects)
  const refusing = refusingOption(options, requestEffects(req)) !== undefined;
  const fields = kind === 'form' ? fieldsOf(d) : [];
  // the option an allow applies (never the agent's own "always" one: the rule is hookmap's)
  const allowOption = kind === 'form' ? undefined : options.find((x) => ['allow', 'allow_once', 'once', 'approve'].includes(x.id.toLowerCase()))?.id;
  const dl = deadlineOf(a);
  const started = Date.parse(req.time);
  const left = dl === undefined ? undefined : Math.max(0, dl - now);
  const total = dl === undefined || !Number.isFinite(started) ? undefined : Math.max(1, dl - started);
  const titleId = `card-${a.id}-title`;
  const runPrompt = req.run ? store.runStart(session, req.run)?.data?.prompt : undefined;
  const said = session?.lastMessage?.data?.text;
  const label = sessionLabel(session ?? { id: a.session });

  const respond = (answer: Record<string, unknown>) => {
    conn.send('control.attention.respond', { session: a.session, subject: req.id, cause: req.id, run: req.run, data: { answer } });
  };
  const sendGuidance = () => {
    const text = guidance.trim();
    if (!text) {
      setErrors(new Map([['__guidance', 'Write the guidance first (or use Deny).']]));
      rootRef.current?.querySelector<HTMLTextAreaElement>('[data-key="t"]')?.focus();
      return;
    }
    setErrors(new Map());
    respond({ text });
  };
  const sendForm = () => {
    const check = checkForm(fields, inputs);
    setErrors(check.errors);
    if (check.errors.size) {
      const first = fields.find((f) => check.errors.has(f.id));
      const el = first && rootRef.current?.querySelector<HTMLElement>(`[data-field="${CSS.escape(first.id)}"] input`);
      el?.focus();
      return;
    }
    respond({ values: check.values });
  };
  // a refusal that names a field (the daemon's AEP-0006 check) is shown at that field
  const rejected = [...store.commandsOf(a)].reverse().find((c) => c.mine)?.ack;
  const fieldErrors = new Map(errors);
  if (rejected?.type === 'control.rejected' && typeof rejected.data?.detail === 'string') {
    const m = /field "([^"]+)": (.*)$/.exec(rejected.data.detail);
    if (m && !fieldErrors.has(m[1])) fieldErrors.set(m[1], `The agent refused this: ${m[2]}`);
  }

  return (
    <article
      ref={rootRef}
      class={`card card-${o.phase}${open ? '' : ' card-settled'}`}
      data-card={a.id}
      data-session={a.session}
      data-answerable={canAnswer ? 'true' : undefined}
      data-phase={o.phase}
      aria-labelledby={titleId}
    >
      <header class="card-head">
        <AgentIcon agent={req.agent} />
        <div class="card-meta">
          <span class="card-agent">{req.agent}</span>
          {showSession ? (
            <a class="card-session" href={sessionHref(a.session)} title={`session ${a.session}`}>
              {label.project ? `${label.project} · session ${label.short}` : `session ${longId(a.session)}`}
            </a>
          ) : null}
        </div>
        <span class={`kind kind-${kind}`}>{KIND_LABEL[kind] ?? kind}</span>
        <time class="card-time" dateTime={req.time}>
          {clockTime(req.time)}
        </time>
      </header>
      <h3 id={titleId} class="card-prompt">
        {typeof d.prompt === 'string' && d.prompt ? d.prompt : `${req.agent} asks for ${kind}${req.subject ? `: ${req.subject}` : ''}`}
      </h3>
      <dl class="card-context">
        {req.subject ? (
          <>
            <dt>{kind === 'permission' ? 'Tool' : 'About'}</dt>
            <dd>{req.subject}</dd>
          </>
        ) : null}
        {typeof runPrompt === 'string' && runPrompt ? (
          <>
            <dt>Task</dt>
            <dd class="clip">{runPrompt}</dd>
          </>
        ) : null}
        {typeof said === 'string' && said ? (
          <>
            <dt>Agent said</dt>
            <dd class="clip agent-said">{said}</dd>
          </>
        ) : null}
        {d.context && typeof d.context === 'object'
          ? Object.entries(d.context as Record<string, unknown>)
              .filter(([, v]) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')
              .slice(0, 6)
              .map(([k, v]) => (
                <>
                  <dt>{k}</dt>
                  <dd class="clip">{String(v)}</dd>
                </>
              ))
          : null}
      </dl>
      {open && left !== undefined ? (
        <div class="countdown" role="timer" aria-label={`${Math.ceil(left / 1000)} seconds left before the agent's own dialog decides`}>
          <div class="countdown-bar" aria-hidden="true">
            <span style={{ transform: `scaleX(${total ? Math.min(1, left / total) : 0})` }} />
          </div>
          <span class="countdown-text">
            {left > 0
              ? `${formatDuration(Math.ceil(left / 1000) * 1000)} left before the agent's own dialog takes over`
              : "Time is up: waiting for the agent's side to confirm…"}
          </span>
        </div>
      ) : null}
      {open && a.floor ? (
        <p class="note floor-note" data-floor={String(a.floor.data?.row ?? '')}>
          A rule ({String(a.floor.data?.rule ?? '')}) would allow this; the floor keeps it for you ({String(a.floor.data?.row ?? '')}).
        </p>
      ) : null}
      {open && a.partial ? (
        <p class="note partial-note" data-approved={String(a.partial.data?.approved ?? '')}>
          {String(a.partial.data?.approved ?? '')} of {String(a.partial.data?.need ?? '')}, allowed by{' '}
          {Array.isArray(a.partial.data?.by) ? (a.partial.data.by as unknown[]).join(', ') : ''}: a different person must allow it too.
        </p>
      ) : null}
      {open && !control.can ? <p class="note">{control.why}</p> : null}
      {canAnswer && kind !== 'form' ? (
        <div class="answers">
          {options.length ? (
            <div class="option-buttons">
              {options.map((opt) => {
                const key = optionKey(req, opt.id);
                return (
                  <button
                    type="button"
                    class={`btn ${key === 'a' ? 'btn-allow' : key === 'd' ? 'btn-deny' : ''}`}
                    data-key={key}
                    data-option={opt.id}
                    disabled={inFlight}
                    aria-keyshortcuts={key}
                    onClick={() => respond({ option: opt.id })}
                  >
                    {opt.label && !/^\d+$/.test(opt.label) ? opt.label : opt.id}
                    {key ? <kbd aria-hidden="true">{key}</kbd> : null}
                  </button>
                );
              })}
            </div>
          ) : null}
          {allowOption && !always ? (
            <button type="button" class="btn btn-quiet btn-always" data-always={a.id} disabled={inFlight} onClick={() => setAlways(true)}>
              Allow always…
            </button>
          ) : null}
          {allowOption && always ? (
            <AlwaysPanel
              request={req.id}
              cardId={`card-${a.id}`}
              disabled={inFlight}
              onClose={() => setAlways(false)}
              onSaved={() => respond({ option: allowOption })}
            />
          ) : null}
          <div class="guidance">
            <label for={`card-${a.id}-text`}>{kind === 'permission' || refusing ? 'Or deny with guidance the agent reads' : 'Your answer'}</label>
            <textarea
              id={`card-${a.id}-text`}
              data-key="t"
              aria-keyshortcuts="t"
              rows={2}
              value={guidance}
              disabled={inFlight}
              aria-invalid={errors.has('__guidance') ? 'true' : undefined}
              aria-describedby={errors.has('__guidance') ? `card-${a.id}-text-err` : undefined}
              onInput={(e) => setGuidance((e.target as HTMLTextAreaElement).value)}
              onKeyDown={(e) => {
                if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
                  e.preventDefault();
                  sendGuidance();
                }
              }}
            />
            {errors.has('__guidance') ? (
              <p class="field-error" id={`card-${a.id}-text-err`}>
                {errors.get('__guidance')}
              </p>
            ) : null}
            <button type="button" class="btn btn-guidance" data-send="text" disabled={inFlight} onClick={sendGuidance}>
              {kind === 'permission' || refusing ? 'Deny with guidance' : 'Send'}
              <kbd aria-hidden="true">t</kbd>
            </button>
          </div>
        </div>
      ) : null}
      {canAnswer && kind === 'form' ? (
        <form
          class="answers card-form"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            sendForm();
          }}
        >
          {fieldErrors.size ? (
            <p class="form-summary" role="alert">
              {fieldErrors.size === 1 ? 'One answer needs attention.' : `${fieldErrors.size} answers need attention.`}
            </p>
          ) : null}
          <FormFields
            cardId={`card-${a.id}`}
            fields={fields}
            inputs={inputs}
            errors={fieldErrors}
            disabled={inFlight}
            onChange={(id, next) => {
              setInputs({ ...inputs, [id]: next });
              if (errors.has(id)) {
                const m = new Map(errors);
                m.delete(id);
                setErrors(m);
              }
            }}
          />
          <button type="submit" class="btn btn-allow" disabled={inFlight}>
            Send answer
          </button>
        </form>
      ) : null}
      <p class={`outcome tone-${o.tone}`} role="status" aria-live="polite" data-outcome={o.phase}>
        {o.text}
      </p>
    </article>
  );
}
