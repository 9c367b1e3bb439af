// Compiling the control parts of a descriptor: a hook's `decide` block (what
// its reply can carry besides the neutral bytes) and the `commands` it
// accepts (written on the surface, or delivered on the next eligible hook
// reply). AEP-0004 §5 (commands, the extension rule); the steering design
// record (control-steering-design.md: queueing, eligibility, caps).
import { REGISTRY_BY_TYPE } from '../aep/schemas.ts';
import { compileEmits, namespaceOf, type EmitContext } from './emits.ts';
import type { Expressions, Path, Site } from './expressions.ts';
import { explain } from './suggest.ts';
import type { Hook, HookmapDescriptor } from '../generated/descriptor-types.ts';
import type { Expr } from '../expr/compile.ts';
import { VERBS, type CompiledCommand, type CompiledDecide, type HoldMatch, type Verb } from './types.ts';
export { compileReplyShape } from './reply-shape.ts';

/** A hook's decide block: each verb's reply template (and when / replacing emits), over the hook's names. */
export function compileDecide(
  x: Expressions,
  spec: Hook['decide'] | undefined,
  hookPath: Path,
  names: readonly string[],
  emitCtx: EmitContext,
): Map<Verb, CompiledDecide> {
  const out = new Map<Verb, CompiledDecide>();
  const site: Site = { position: 'reply', names };
  for (const [verb, d] of Object.entries(spec ?? {})) {
    if (d == null || !VERBS.includes(verb as Verb)) continue; // the schema already refused it
    const p = [...hookPath, 'decide', verb];
    const reply = x.template(d.reply, [...p, 'reply'], site);
    const when = x.expr(d.when, [...p, 'when'], site);
    const emit = d.emit === undefined ? undefined : compileEmits(x, d.emit, [...p, 'emit'], emitCtx);
    if (!reply) continue;
    out.set(verb as Verb, {
      verb: verb as Verb,
      reply,
      when,
      emit,
      exit: d.exit,
      ...(d.stream ? { stream: d.stream } : {}),
      replyText: structuredClone(d.reply),
      whenText: d.when === undefined ? undefined : String(d.when),
    });
  }
  return out;
}

/** The commands a descriptor accepts; `pruned`: a schema error removed parts (a config key among them, maybe), so references into them are not judged. */
export function compileCommands(x: Expressions, spec: HookmapDescriptor, site: Site, pruned = false): Map<string, CompiledCommand> {
  const out = new Map<string, CompiledCommand>();
  const keys = Object.keys(spec.config ?? {});
  let carrier: string | undefined; // the command declaring the next-turn carrier: one per descriptor (a session has one way in between turns)
  for (const [type, c] of Object.entries(spec.commands ?? {})) {
    if (c == null) continue;
    const p: Path = ['commands', type];
    if (!type.startsWith('x.') && !REGISTRY_BY_TYPE.has(type)) x.err('unknown-event-type', p, `'${type}' is not a registered AEP command type`, { key: true });
    if (type.startsWith('x.') && !type.startsWith(`x.${namespaceOf(spec)}.`))
      x.err('unknown-event-type', p, `'${type}' is outside this descriptor's namespace x.${namespaceOf(spec)}.*`, { key: true });
    if (c.opt_in !== undefined && !pruned && !keys.includes(c.opt_in))
      x.err(
        'unknown-reference',
        [...p, 'opt_in'],
        explain(`opt_in names config key '${c.opt_in}', which config does not declare`, { name: c.opt_in, candidates: keys, label: 'Config keys' }),
      );
    if (c.max_chars !== undefined && c.deliver !== 'context')
      x.err('schema-violation', [...p, 'max_chars'], 'max_chars bounds instruction text: it applies to `deliver: context` only', { key: true });
    const nt = c.next_turn;
    if (nt && carrier !== undefined)
      x.err('schema-violation', [...p, 'next_turn'], `a second next-turn carrier: commands.${carrier} already declares one (one per agent)`, { key: true });
    else if (nt) carrier = type;
    if (nt && c.deliver !== 'context')
      x.err('schema-violation', [...p, 'next_turn'], 'next_turn carries instruction text to an idle session: it applies to `deliver: context` only', {
        key: true,
      });
    if (nt && !pruned && !keys.includes(nt.opt_in))
      x.err('unknown-reference', [...p, 'next_turn', 'opt_in'], `next_turn.opt_in names config key '${nt.opt_in}', which config does not declare`);
    for (const [i, h] of (nt?.on ?? []).entries())
      if (!(spec.hooks ?? {})[h]) x.err('unknown-reference', [...p, 'next_turn', 'on', i], `next_turn.on names hook '${h}', which hooks does not declare`);
    if (nt?.wake !== undefined && !(spec.hooks ?? {})[nt.wake])
      x.err('unknown-reference', [...p, 'next_turn', 'wake'], `next_turn.wake names hook '${nt.wake}', which hooks does not declare`);
    else if (nt?.wake !== undefined && spec.hooks?.[nt.wake]?.register !== false)
      x.err(
        'schema-violation',
        [...p, 'next_turn', 'wake'],
        `next_turn.wake: hook '${nt.wake}' is fired by hookmap, never by the agent: give it register: false`,
      );
    if (c.deliver === 'cancel' && type !== 'control.cancel')
      x.err('schema-violation', [...p, 'deliver'], `deliver: cancel stops the running turn: it is how control.cancel is delivered, not ${type}`);
    const write = c.write === undefined ? undefined : x.template(c.write, [...p, 'write'], site);
    const when = x.expr(c.when, [...p, 'when'], site);
    if (c.write !== undefined && !write) continue;
    out.set(type, {
      type,
      summary: c.summary,
      optIn: c.opt_in,
      when,
      refuse: c.refuse,
      write,
      deliver: c.deliver,
      maxChars: c.max_chars,
      queueCap: c.queue ?? 20,
      nextTurn: nt && {
        on: [...nt.on],
        optIn: nt.opt_in,
        register: { ...(nt.register ?? {}) },
        waitMs: nt.wait_ms,
        exit: nt.exit,
        stream: nt.stream,
        whenEnv: nt.when_env && { ...nt.when_env },
        wake: nt.wake,
      },
    });
  }
  return out;
}

/** A delivered verb needs a hook whose reply can carry it; a decide verb nothing feeds is still fine (operator policy may). */
export function checkDeliveries(x: Expressions, commands: Map<string, CompiledCommand>, hooksDecide: Map<string, Map<Verb, CompiledDecide>>): void {
  for (const cmd of commands.values()) {
    if (!cmd.deliver) continue;
    const carriers = [...hooksDecide].filter(([, m]) => m.has(cmd.deliver!)).map(([h]) => h);
    // an instruction a next-turn carrier alone delivers waits for the session's idle moment (a plugin carrier: shim.plugin.next_turn)
    if (!carriers.length && !(cmd.deliver === 'context' && cmd.nextTurn))
      x.err('unknown-reference', ['commands', cmd.type, 'deliver'], `no hook's decide block carries '${cmd.deliver}': add hooks.<hook>.decide.${cmd.deliver}`);
  }
}

/** A hold's `match` block (what answer rules read: docs/rules.md), each key one expression. */
export function compileHoldMatch(m: Record<string, unknown>, expr: (v: unknown, key: string) => Expr | undefined): HoldMatch {
  const out: HoldMatch = {};
  const keys: [keyof HoldMatch, string][] = [
    ['tool', 'tool'],
    ['command', 'command'],
    ['paths', 'paths'],
    ['cwd', 'cwd'],
    ['mcpServer', 'mcp_server'],
    ['mcpTool', 'mcp_tool'],
  ];
  for (const [k, yaml] of keys) if (m[yaml] !== undefined) out[k] = expr(m[yaml], yaml);
  return out;
}
