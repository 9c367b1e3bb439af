// "Allow always" on a card (issue 22): what the rule will cover, proposed
// from the parsed command (this exact command, commands starting with an
// editable prefix, or the whole tool) and where (this session, this
// project, everywhere), shown in words before it is saved; where the agent
// can remember an allow itself, a choice to let it. Saving asks the server
// to make the rule from the pending request, then sends the plain allow.
import { useEffect, useState } from 'preact/hooks';
import { describeChoice, learn, propose, type AlwaysChoice, type Proposal } from '../model/rules.ts';

export function AlwaysPanel({
  request,
  cardId,
  disabled,
  onSaved,
  onClose,
}: {
  request: string;
  cardId: string;
  disabled: boolean;
  onSaved: () => void;
  onClose: () => void;
}) {
  const [p, setP] = useState<Proposal | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [choice, setChoice] = useState<AlwaysChoice>({ match: 'prefix', scope: 'project' });
  const [saving, setSaving] = useState(false);
  useEffect(() => {
    void propose(request).then((r) => {
      if (!r.ok) return setError(r.detail);
      const v = r.value;
      setP(v);
      setChoice({
        match: v.command !== undefined && v.plain ? 'prefix' : v.command === undefined && v.paths.length ? 'exact' : 'tool',
        prefix: v.prefixes[0],
        scope: v.project ? 'project' : 'session',
      });
    });
  }, [request]);
  const id = (x: string) => `${cardId}-always-${x}`;
  if (error && !p)
    return (
      <p class="note always-error" role="alert">
        “Allow always” is not possible here: {error}
      </p>
    );
  if (!p) return <p class="note">Reading the request…</p>;
  const commandRules = p.command !== undefined && p.plain;
  const set = (c: Partial<AlwaysChoice>) => setChoice({ ...choice, ...c });
  const save = async () => {
    setSaving(true);
    setError(undefined);
    const r = await learn(request, { ...choice, prefix: choice.match === 'prefix' ? choice.prefix?.trim() : undefined });
    setSaving(false);
    if (!r.ok) return setError(r.detail);
    onSaved();
  };
  return (
    <fieldset class="always" data-always-panel={request}>
      <legend>Allow always</legend>
      {p.command !== undefined && !p.plain ? (
        <p class="note">This command is {p.refused ?? 'more than one plain command'}: a rule can only cover the whole tool.</p>
      ) : null}
      <div class="always-choices" role="radiogroup" aria-label="What the rule covers">
        {commandRules || (p.command === undefined && p.paths.length) ? (
          <label>
            <input type="radio" name={id('match')} value="exact" checked={choice.match === 'exact'} onChange={() => set({ match: 'exact' })} />{' '}
            {p.command !== undefined ? 'this exact command' : 'these exact paths'}
          </label>
        ) : null}
        {commandRules ? (
          <label class="always-prefix">
            <input type="radio" name={id('match')} value="prefix" checked={choice.match === 'prefix'} onChange={() => set({ match: 'prefix' })} /> commands
            starting with
            <input
              type="text"
              aria-label="The words a command must start with"
              data-always-prefix
              value={choice.prefix ?? ''}
              onInput={(e) => set({ match: 'prefix', prefix: (e.target as HTMLInputElement).value })}
            />
          </label>
        ) : null}
        <label>
          <input type="radio" name={id('match')} value="tool" checked={choice.match === 'tool'} onChange={() => set({ match: 'tool' })} /> this tool (
          {p.tool ?? 'any'}), any input
        </label>
      </div>
      <div class="always-choices" role="radiogroup" aria-label="Where the rule applies">
        <label>
          <input type="radio" name={id('scope')} value="session" checked={choice.scope === 'session'} onChange={() => set({ scope: 'session' })} /> this session
        </label>
        {p.project ? (
          <label>
            <input type="radio" name={id('scope')} value="project" checked={choice.scope === 'project'} onChange={() => set({ scope: 'project' })} /> this
            project <span class="muted">({p.project})</span>
          </label>
        ) : null}
        <label>
          <input type="radio" name={id('scope')} value="user" checked={choice.scope === 'user'} onChange={() => set({ scope: 'user' })} /> everywhere
        </label>
      </div>
      {p.native ? (
        <label class="always-native">
          <input
            type="checkbox"
            data-always-native
            checked={choice.native === true}
            onChange={(e) => set({ native: (e.target as HTMLInputElement).checked })}
          />{' '}
          {p.agent} remembers it too (its own settings)
        </label>
      ) : null}
      <p class="always-preview" data-always-preview aria-live="polite">
        {describeChoice(p, choice)} Revocable under Rules; the floor still keeps risky commands for you.
      </p>
      {p.floor ? <p class="note">This very request hits the floor ({p.floor}): the rule will answer the others, not this one.</p> : null}
      {error ? (
        <p class="field-error" role="alert">
          {error}
        </p>
      ) : null}
      <div class="always-actions">
        <button type="button" class="btn btn-allow" data-always-save disabled={disabled || saving} onClick={() => void save()}>
          Save rule and allow
        </button>
        <button type="button" class="btn btn-quiet" onClick={onClose}>
          Cancel
        </button>
      </div>
    </fieldset>
  );
}
