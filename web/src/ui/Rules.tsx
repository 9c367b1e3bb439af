// The rules that answer held requests (issue 22): what each matches, its
// scope, who added it from which surface and when, how often it answered
// and when last, with revoke for the learned ones (a control sign-in only).
// A revoked rule stops answering at the next request.
import { useEffect, useState } from 'preact/hooks';
import { listRules, revokeRule, type RuleView } from '../model/rules.ts';
import { useCanControl } from './context.ts';

const SCOPE: Record<RuleView['scope'], string> = { session: 'this session', project: 'project', user: 'everywhere' };

export function RulesView({ focus }: { focus?: string }) {
  const control = useCanControl();
  const [rules, setRules] = useState<RuleView[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [file, setFile] = useState<string | null>(null);
  const load = () =>
    void listRules().then((r) => {
      if (!r.ok) return setError(r.detail);
      setError(
        r.value.errors.length
          ? `The learned rules file does not compile (${r.value.errors[0].message}): none of its rules answers anything until it is fixed.`
          : undefined,
      );
      setFile(r.value.learned_file);
      setRules(r.value.rules);
    });
  useEffect(load, []);
  useEffect(() => {
    if (focus && rules) document.getElementById(`rule-${focus}`)?.scrollIntoView({ block: 'center' });
  }, [focus, rules]);
  const revoke = async (id: string) => {
    const r = await revokeRule(id);
    if (!r.ok) setError(r.detail);
    load();
  };
  const into = file ? ` (to ${file})` : '';
  return (
    <section class="rules" aria-labelledby="rules-title">
      <h2 id="rules-title">Rules</h2>
      <p class="muted">
        Rules answer a permission before it reaches you. “Allow always” on a card adds one{into}; the floor keeps risky commands for you whatever a rule says.
      </p>
      {error ? (
        <p class="field-error" role="alert">
          {error}
        </p>
      ) : null}
      {rules && !rules.length ? <p class="empty">No rules yet: every permission comes to you.</p> : null}
      {rules?.length ? (
        <ul class="rule-list">
          {rules.map((r) => (
            <li id={`rule-${r.id}`} class={`rule${focus === r.id ? ' rule-focus' : ''}`} data-rule={r.id} key={r.id}>
              <div class="rule-head">
                <span class={`pill pill-verb-${r.verb}`}>{r.verb}</span> <strong>{r.matches}</strong> <span class="muted">· {SCOPE[r.scope]}</span>
              </div>
              <div class="rule-meta muted">
                {r.added ? `added by ${r.added.by} from ${r.added.via}, ${new Date(r.added.at).toLocaleString()}` : `in ${r.file}`}
                {' · '}
                {r.uses ? `answered ${r.uses} time${r.uses === 1 ? '' : 's'}, last ${new Date(r.last_used!).toLocaleString()}` : 'never used yet'}
                {r.added?.native ? ` · the agent remembers it too` : ''}
              </div>
              <code class="rule-id">{r.id}</code>
              {r.revocable && control.can ? (
                <button type="button" class="btn btn-deny" data-revoke={r.id} onClick={() => void revoke(r.id)}>
                  Revoke
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
