// `hookmap doctor`: what is wired, what answers, what is stale. Pure
// inspection: never writes anything but a probe directory in the log folder.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { listVendors, loadVendor } from '../../core/descriptor/registry.ts';
import type { Descriptor } from '../../core/descriptor/types.ts';
import type { Target } from '../../core/io/target.ts';
import { FORMATS } from '../../runtime/setup/formats/index.ts';
import { setupSpec } from '../../runtime/setup/spec.ts';
import { backplaneFindings, checkHealth } from './daemon.ts';
import { checkDeadLetters } from './dead-letter.ts';
import { checkLogs } from './logs.ts';
import { checkPush } from './push.ts';
import type { Finding } from './types.ts';
import { inspectAgent, type AgentWiring } from './wiring.ts';
import { inspectMcp } from './mcp.ts';
import { checkFailedOpen } from './failed-open.ts';
import { checkAutostart } from './autostart.ts';
import { checkHomeModes } from './home-modes.ts';
import { readWirings, type Wiring } from '../../runtime/setup/wirings.ts';

export interface DoctorOptions {
  /** The machine it inspects (engine/core/io/target.ts): the user's home, hookmap's home and the address shims point at. */
  target: Target;
  dir: string;
  url: string;
  agents?: string[];
  /** Presented to /healthz for the relay state. */ token?: string;
  /** This hookmap's version (stamps written by another are named). */ version?: string;
}

export interface DoctorReport {
  healthy: boolean;
  problems: number;
  warnings: number;
  wired: string[];
  findings: Finding[];
}

/** curl >= 7.84 has `%header{}` in --write-out, which the sh shim reads the exit code with. */
function checkCurl(): Finding {
  const r = spawnSync('curl', ['--version'], { encoding: 'utf8', timeout: 3000 });
  const subject = 'curl';
  if (r.error || r.status !== 0)
    return {
      area: 'shim',
      subject,
      status: 'problem',
      message: 'curl is not on PATH: sh shims answer neutral (events lost) unless bash and timeout post for them; next-turn waiters need curl',
      fix: 'install curl, or re-run setup with --shim node',
    };
  const v = /curl (\d+)\.(\d+)/.exec(r.stdout);
  const ok = v && (Number(v[1]) > 7 || (Number(v[1]) === 7 && Number(v[2]) >= 84));
  return ok
    ? { area: 'shim', subject, status: 'ok', message: `curl ${v![1]}.${v![2]} (sh shims need >= 7.84)` }
    : {
        area: 'shim',
        subject,
        status: 'problem',
        message: `curl ${v ? `${v[1]}.${v[2]}` : '(unknown version)'} is older than 7.84: sh shims cannot read x-hookmap-exit`,
        fix: 'upgrade curl, or re-run setup with --shim node',
      };
}

export async function runDoctor(o: DoctorOptions): Promise<DoctorReport> {
  const findings: Finding[] = [];
  const wired: string[] = [];
  let usesSh = false;
  const skipped: string[] = [];
  const wirings = new Map<string, AgentWiring>();
  const descriptors = new Map<string, Descriptor>();
  const recorded = readWirings(o.target.home);
  for (const agent of o.agents ?? listVendors()) {
    let d: Descriptor;
    try {
      d = loadVendor(agent);
    } catch (err) {
      findings.push({
        area: 'agent',
        subject: agent,
        status: o.agents ? 'problem' : 'info',
        message: `descriptor does not load: ${(err as Error).message.split('\n')[0]}`,
      });
      continue;
    }
    const spec = setupSpec(d);
    if (!spec || !FORMATS[spec.strategy]) {
      skipped.push(agent);
      continue;
    }
    const w = inspectAgent(d, o.target, o.dir, recorded);
    wirings.set(agent, w);
    descriptors.set(agent, d);
    findings.push(...w.findings, ...inspectMcp(d, o.target, o.dir, w.wired ? (w.setupCommand ?? `hookmap setup ${agent}`) : undefined));
    if (w.wired) wired.push(agent);
    usesSh ||= w.usesShShim;
  }
  findings.push(...deferHazards(o, wirings, descriptors, recorded));
  findings.push(...checkHomeModes(o.target.home));
  if (skipped.length)
    findings.push({ area: 'agent', subject: skipped.join(', '), status: 'info', message: 'not checked: no setup shape hookmap implements yet' });
  if (usesSh) findings.push(checkCurl());
  const h = await checkHealth(o.url, 1500, o.token);
  if (!h.reachable) {
    findings.push({
      area: 'daemon',
      subject: o.url,
      status: wired.length ? 'problem' : 'info',
      message:
        `no daemon answers at ${h.url} (${h.error})` +
        (wired.length ? `: the hooks of ${wired.join(', ')} get their neutral reply and nothing is recorded (no events, no prompts to answer)` : ''),
      fix: 'hookmap up',
    });
  } else if (!h.ok) {
    findings.push({ area: 'daemon', subject: o.url, status: 'problem', message: `${h.url} answers but is not healthy${h.error ? ` (${h.error})` : ''}` });
  } else {
    findings.push({ area: 'daemon', subject: o.url, status: 'ok', message: `daemon answers at ${o.url}` });
    if (!h.detailed)
      findings.push({
        area: 'daemon',
        subject: o.url,
        status: 'info',
        message: 'relay state not shown: /healthz gives details only to a token (none found, or it was refused)',
        fix: 'HOOKMAP_TOKEN, HOOKMAP_TOKEN_FILE, or the owner token in $HOOKMAP_HOME/token',
      });
    else
      findings.push(
        h.relay
          ? { area: 'daemon', subject: o.url, status: 'ok', message: 'relay connected' }
          : {
              area: 'daemon',
              subject: o.url,
              status: 'warn',
              message: 'relay not connected: events are logged but nobody sees them live, and held hooks cannot be answered remotely',
            },
      );
    if (h.backplane) findings.push(...backplaneFindings(h.backplane));
    for (const [name, c] of Object.entries(h.channels ?? {})) {
      findings.push(
        c.ok
          ? { area: 'push', subject: name, status: 'ok', message: `channel ${name}: no problem since up started` }
          : {
              area: 'push',
              subject: name,
              status: 'warn',
              message: `channel ${name}: ${c.problem} (last at ${c.at})`,
              fix: `hookmap channels test ${name} --config <the up config>`,
            },
      );
    }
  }
  findings.push(...checkFailedOpen(o.target.home));
  findings.push(...checkPush(o.target.home, o.url));
  findings.push(...checkAutostart(o.target.home, o.version ?? ''));
  findings.push(...checkLogs(join(o.target.home, 'logs')));
  findings.push(...checkDeadLetters(join(o.target.home, 'logs')));
  const problems = findings.filter((f) => f.status === 'problem').length;
  const warnings = findings.filter((f) => f.status === 'warn').length;
  return { healthy: problems === 0, problems, warnings, wired, findings };
}

/**
 * Agents that run another agent's hook config (a descriptor's `defer:` rule
 * names them): when both are wired, one firing of the deferring-to agent
 * reaches hookmap through both configs. Say so, and that the rule
 * attributes those firings to the right agent.
 */
function deferHazards(o: DoctorOptions, wirings: Map<string, AgentWiring>, descriptors: Map<string, Descriptor>, recorded: Wiring[]): Finding[] {
  const out: Finding[] = [];
  for (const [agent, w] of wirings) {
    if (!w.wired) continue;
    for (const rule of descriptors.get(agent)!.defer) {
      let other = wirings.get(rule.to);
      if (!other) {
        try {
          const od = loadVendor(rule.to);
          if (!setupSpec(od)) continue;
          other = inspectAgent(od, o.target, o.dir, recorded);
        } catch {
          continue;
        }
      }
      if (!other.wired) continue;
      const mine = w.wiredAt.map((x) => x.path).join(', ');
      const theirs = other.wiredAt.map((x) => x.path).join(', ');
      out.push({
        area: 'agent',
        subject: `${agent} + ${rule.to}`,
        status: 'warn',
        message:
          `both are wired (${mine}; ${theirs}) and ${rule.to} also runs ${agent}'s hook config${rule.why ? ` (${rule.why})` : ''}: ` +
          `every ${rule.to} firing runs both sets of hooks (two round trips to hookmap). hookmap ` +
          `attributes the copy arriving through ${agent}'s hooks to ${rule.to} by ${agent}'s ` +
          `\`defer:\` rule and drops it (neutral reply, no events), so each moment is counted once, ` +
          `under ${rule.to}`,
        fix: `to skip the extra round trip, wire only one of them where ${rule.to} runs`,
      });
    }
  }
  return out;
}
