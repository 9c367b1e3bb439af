// Builds the AEP envelope (AEP-0001 §5): the sixteen context attributes in
// their documented order, absent optional attributes omitted (never null).
import { hostname } from 'node:os';
import { monotonicFactory } from 'ulid';
import { AEP_VERSION, type CaptureLevel, type Severity } from '../aep/schemas.ts';
import type { AepEnvelope } from '../generated/aep-types.ts';

/** An AEP event: the envelope type generated from schemas/aep/aep-event.schema.json. */
export type AepEvent = AepEnvelope;

const ulid = monotonicFactory();
export const newId = (): string => ulid();

/** A host token safe inside a URI authority. */
export function sourceHost(): string {
  return (process.env.HOOKMAP_HOST_ID || hostname() || 'localhost').toLowerCase().replace(/[^a-z0-9.-]+/g, '-') || 'localhost';
}

export function sourceUri(host: string, agent: string, session?: string): string {
  const base = `aep://${host}/agent/${encodeURIComponent(agent)}`;
  return session === undefined ? base : `${base}/session/${encodeURIComponent(session)}`;
}

export interface EnvelopeParts {
  id?: string;
  type: string;
  subject?: string;
  time?: string;
  host: string;
  agent: string;
  session?: string;
  run?: string;
  step?: string;
  seq?: number;
  epoch?: number;
  cause?: string;
  severity?: Severity;
  capture?: CaptureLevel;
  data?: Record<string, unknown>;
}

export function buildEnvelope(p: EnvelopeParts): AepEvent {
  const ev = { aep: AEP_VERSION, id: p.id ?? newId(), type: p.type } as AepEvent;
  if (p.subject !== undefined) ev.subject = p.subject;
  ev.time = p.time ?? new Date().toISOString();
  ev.source = sourceUri(p.host, p.agent, p.session);
  ev.agent = p.agent;
  if (p.session !== undefined) ev.session = p.session;
  if (p.run !== undefined) ev.run = p.run;
  if (p.step !== undefined) ev.step = p.step;
  if (p.seq !== undefined) ev.seq = p.seq;
  if (p.epoch !== undefined) ev.epoch = p.epoch;
  if (p.cause !== undefined) ev.cause = p.cause;
  if (p.severity !== undefined) ev.severity = p.severity;
  if (p.capture !== undefined) ev.capture = p.capture;
  if (p.data !== undefined) ev.data = p.data;
  return ev;
}
