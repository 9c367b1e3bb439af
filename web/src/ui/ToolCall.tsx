// A tool call's row body (the call, what became of it, and what the OTel
// companion channel adds: model/otel-join.ts) and the tokens-and-cost note
// of a session or a run (model/usage.ts).
import type { Ev } from '../model/aep.ts';
import { callOutcome } from '../model/calls.ts';
import { otelText } from '../model/otel-join.ts';
import { durationMs, formatDuration, toolDetail, type ToolRow } from '../model/timeline.ts';
import { tokenCount, usageLong, usageText, type UsageSum } from '../model/usage.ts';
import { TYPE } from '../../../engine/core/kernel/lifecycle.ts';

export function permSig(r: ToolRow): string {
  const p = r.permission;
  const o = r.otel;
  return `${p ? `${p.req.id}:${p.answered?.id ?? ''}:${p.timeout?.id ?? ''}:${p.resolved?.id ?? ''}` : ''}|${o?.result?.id ?? ''}:${o?.decision?.id ?? ''}`;
}

export function ToolCall({ r }: { r: ToolRow }) {
  const req: Ev | undefined = r.ev.type === TYPE.toolRequested ? r.ev : undefined;
  const end = req ? r.end : r.ev;
  const name = r.ev.data?.tool?.name ?? r.ev.subject ?? 'tool';
  const detail = req ? toolDetail(req) : undefined;
  const o = callOutcome(r);
  const otel = otelText(r.otel);
  return (
    <p>
      <strong>{name}</strong> <span class={`pill pill-tool-${o.status.replace(' ', '-')}`}>{o.status}</span>
      {end ? <span class="muted"> · {formatDuration(durationMs(req, end))}</span> : null}
      {detail ? <code class="row-text tool-detail">{detail}</code> : null}
      {o.text ? <span class="row-text muted tool-outcome">{o.text}</span> : null}
      {otel.length ? (
        <span class="row-text muted tool-otel" data-otel title="From the agent's OpenTelemetry logs, joined by the call id">
          {otel.join(' · ')}
        </span>
      ) : null}
    </p>
  );
}

/** "1.5k tokens · $0.0123", spelled out in full for a tooltip and screen readers. */
export function UsageNote({ u, class: cls = 'usage' }: { u: UsageSum; class?: string }) {
  const long = usageLong(u);
  return (
    <span class={cls} data-tokens={tokenCount(u)} data-cost={u.cost ? u.cost.total : undefined} title={long}>
      <span aria-hidden="true">{usageText(u)}</span>
      <span class="sr-only">{long}</span>
    </span>
  );
}
