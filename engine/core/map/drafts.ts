// The emit stage: the firing's events as its rules draft them (before
// capture gating): first-sight emits, the hook's own emits, its snapshot
// diff (added / entered / changed / removed items), or the descriptor's
// fallback for a hook without a rule. Each draft carries its run (opened,
// kept or closed as its emit says); `$previous` and `$first` name the
// drafts before it. A decision that replaces the firing's emits rebuilds
// from the run state the firing started with (choose.ts).
import { TYPE_PATTERN } from '../aep/schemas.ts';
import type { CompiledEmit } from '../descriptor/types.ts';
import { RUN_TERMINALS } from './decide.ts';
import { newId } from './envelope.ts';
import { boundId } from './bounds.ts';
import { MapError } from './errors.ts';
import { setRunBindings, type Bindings, type Draft, type Firing, type MapContext } from './firing.ts';

const NO_EXTRA: Bindings = Object.freeze({});

export class DraftBuilder {
  constructor(
    private readonly m: MapContext,
    private readonly f: Firing,
  ) {}

  /** One emit rule over `ctxInput` (the payload, or a snapshot item with `extra` bindings): a draft, or nothing when it yields nothing. */
  async emit(emit: CompiledEmit, ctxInput: unknown, extra: Bindings = NO_EXTRA): Promise<void> {
    const { m, f } = this;
    const { b, drafts, run } = f;
    b.previous = drafts.at(-1)?.id;
    b.first = drafts[0]?.id; // the firing's first event (cause of its companions, e.g. resolved/denied after an answer)
    const bindings = extra === NO_EXTRA ? b : { ...b, ...extra };
    if (emit.whenExpr && !(await m.eval(emit.whenExpr, ctxInput, bindings))) return;
    const out = (await m.eval(emit.expr, ctxInput, bindings)) as Record<string, unknown> | undefined;
    if (!out) return;
    const type = emit.type ?? (out.type as string);
    if (typeof type !== 'string' || !TYPE_PATTERN.test(type)) throw new MapError('invalid-type', `rule ${emit.path} produced type ${JSON.stringify(type)}`);
    const draft: Draft = { emit, type, id: newId() };
    if (out.subject !== undefined) draft.subject = String(out.subject);
    if (out.step !== undefined) draft.step = String(out.step);
    if (out.cause !== undefined) draft.cause = String(out.cause);
    draft.data = (out.data as Record<string, unknown>) ?? {};
    draft.standins = out.standins as Record<string, unknown> | undefined;
    if (out.fragment_of !== undefined && out.fragment_of !== null) draft.fragmentOf = String(out.fragment_of);
    if (emit.run === 'open') {
      run.count++;
      // a descriptor may name the run from the wire (a request id); else one is minted
      const named = emit.runId ? await m.eval(emit.runId, ctxInput, bindings) : undefined;
      run.id = typeof named === 'string' && named !== '' ? boundId(named) : typeof named === 'number' ? String(named) : `run-${newId()}`;
      run.startId = draft.id;
      draft.runStart = true;
    }
    draft.run = emit.run === 'none' ? undefined : run.id;
    if (emit.run === 'close') {
      run.id = undefined;
      run.startId = undefined;
    }
    drafts.push(draft);
    setRunBindings(b, run);
  }

  /** The descriptor's first-sight emits, on a session's first firing (unless the hook is excepted). */
  private async firstSight(): Promise<void> {
    const d = this.m.descriptor;
    const f = this.f;
    if (f.firstSight && d.firstSight && !d.firstSight.except.has(f.hookName)) {
      for (const e of d.firstSight.emit) await this.emit(e, f.input);
    }
  }

  /** The firing's drafts from `emits` (the hook's own, or a decision's replacement), from the run state it started with. */
  async build(emits: CompiledEmit[], snapshot: boolean): Promise<void> {
    const f = this.f;
    const { drafts, st } = f;
    drafts.length = 0;
    Object.assign(f.run, f.initialRun);
    setRunBindings(f.b, f.run);
    await this.firstSight();
    for (const e of emits) await this.emit(e, f.input);
    if (snapshot && f.hook?.snapshot) await this.snapshotDiff();
    // one terminal per run: a run that already ended (a delivered cancel) is not finished again
    for (let i = drafts.length - 1; i >= 0; i--)
      if (RUN_TERMINALS.has(drafts[i].type) && drafts[i].run !== undefined && st.closedRuns?.has(drafts[i].run!)) drafts.splice(i, 1);
  }

  /** A hook without a rule: first-sight emits, then the descriptor's fallback event. */
  async fallback(): Promise<void> {
    const { m, f } = this;
    await this.firstSight();
    const fb = m.descriptor.fallback!;
    const type = await m.eval(fb.type, f.input, f.b);
    if (typeof type !== 'string' || !TYPE_PATTERN.test(type))
      throw new MapError('invalid-type', `fallback produced type ${JSON.stringify(type)} for hook '${f.hookName}'`);
    const data = fb.data ? ((await m.eval(fb.data, f.input, f.b)) as Record<string, unknown>) : {};
    const subject = fb.subject ? await m.eval(fb.subject, f.input, f.b) : undefined;
    f.drafts.push({
      emit: { type, typeText: type, expr: fb.type, path: 'fallback', severity: fb.severity },
      type,
      data: data ?? {},
      subject: subject === undefined ? undefined : String(subject),
      run: f.run.id,
      id: newId(),
    });
  }

  /** The hook's snapshot against the one seen last in this session: an emit per added, entered, changed or removed item. */
  private async snapshotDiff(): Promise<void> {
    const { m, f } = this;
    const { b, st } = f;
    const snap = f.hook!.snapshot!;
    const raw = await m.eval(snap.items, f.input, b);
    const next = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
    const prevList = st.snapshots.get(snap.name) ?? [];
    const idOf = async (item: unknown) => String(await m.eval(snap.id, item, b));
    const prevById = new Map<string, unknown>();
    for (const p of prevList) prevById.set(await idOf(p), p);
    const seen = new Set<string>();
    for (const item of next) {
      const id = await idOf(item);
      seen.add(id);
      const prev = prevById.get(id);
      for (const e of snap.emit) {
        if (e.on === 'added' && prev !== undefined) continue;
        if (e.on === 'removed') continue;
        if (e.on === 'changed' && (prev === undefined || JSON.stringify(prev) === JSON.stringify(item))) continue;
        if (e.on === 'entered' && prev !== undefined && e.whenExpr) {
          const before = await m.eval(e.whenExpr, prev, { ...b, prev: undefined, id });
          if (before) continue;
        }
        await this.emit(e, item, { prev, id });
      }
    }
    for (const [id, prev] of prevById) {
      if (seen.has(id)) continue;
      for (const e of snap.emit) if (e.on === 'removed') await this.emit(e, prev, { prev, id });
    }
    f.writes.push(() => st.snapshots.set(snap.name, next)); // remembered only when the firing commits
  }
}
