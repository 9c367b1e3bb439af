// The budgets beside the usage (#/history): each cap with what every scope it
// counts spent in the current window, how near the cap it is, and what
// happens next (GET /budgets; model/budgets.ts). Refreshed with the usage and
// every 30 s while shown; nothing at all when `up` holds no budget.
import { useEffect, useState } from 'preact/hooks';
import { amount, budgets, counts, type Budget } from '../model/budgets.ts';

const REFRESH_MS = 30_000;

export function Budgets({ refresh }: { refresh: unknown }) {
  const [list, setList] = useState<Budget[]>([]);
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    let live = true;
    const load = () =>
      budgets().then(
        (b) => live && (setList(b.budgets), setError(undefined)),
        (e: Error) => live && setError(e.message),
      );
    void load();
    const t = setInterval(load, REFRESH_MS);
    return () => {
      live = false;
      clearInterval(t);
    };
  }, [refresh]);
  if (!list.length && !error) return null;
  return (
    <section class="budgets" aria-label="Budgets">
      <h3>Budgets</h3>
      {error ? <p class="error">{error}</p> : null}
      {list.map((b) => (
        <div class="budget" key={b.id} data-budget={b.id}>
          <p class="budget-head">
            <strong>{b.id}</strong> <span class="muted">{counts(b)}</span> · cap {amount(b.unit, b.cap)} · at the cap: {b.at_cap}
            {b.current ? <span class="muted"> · {b.current}</span> : null}
          </p>
          {b.spends.length ? (
            <ul class="budget-spends">
              {b.spends.map((s) => (
                <li key={s.name} data-spend={s.name} data-state={s.state}>
                  <span class="budget-name">{s.name}</span>
                  <meter
                    min={0}
                    max={1}
                    low={b.warn_at}
                    high={0.999}
                    optimum={0}
                    value={Math.min(1, s.share)}
                    aria-label={`${s.name}: ${Math.round(s.share * 100)}% of the cap`}
                  />
                  <span data-spent>
                    {amount(b.unit, s.spent)} of {amount(b.unit, b.cap)} ({Math.round(s.share * 100)}%)
                  </span>
                  <span class="muted"> · {s.next}</span>
                  {s.unpriced ? <span class="muted"> · {s.unpriced} unpriced</span> : null}
                </li>
              ))}
              {b.scopes > b.spends.length ? <li class="muted">and {b.scopes - b.spends.length} more</li> : null}
            </ul>
          ) : (
            <p class="muted">nothing spent in this window yet</p>
          )}
        </div>
      ))}
    </section>
  );
}
