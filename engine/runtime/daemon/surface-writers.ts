// Which live surface connection carries each session (a tee connection,
// engine/runtime/surface/tee-endpoint.ts): a surface command for a session is
// written on the connection that last carried one of its firings. Bounded,
// least recently used first; a connection that ends carries nothing more.
// AEP-0004 §5 (a command's effect delivered through the agent's own channel).

/** A live surface connection that can write a command's bytes to the agent (engine/runtime/surface/tee-endpoint.ts). */
export interface SurfaceWriter {
  readonly id: string;
  write(commandId: string, bytes: string): Promise<{ ok: boolean; why?: string }>;
}

export class SurfaceWriters {
  private readonly bySession = new Map<string, SurfaceWriter>();

  constructor(private readonly max = 10_000) {}

  bind(session: string, w: SurfaceWriter): void {
    this.bySession.delete(session);
    this.bySession.set(session, w);
    if (this.bySession.size > this.max) this.bySession.delete(this.bySession.keys().next().value as string);
  }

  /** A surface connection ended: it carries nothing any more. */
  forget(w: SurfaceWriter): void {
    for (const [s, x] of this.bySession) if (x === w) this.bySession.delete(s);
  }

  get(session: string): SurfaceWriter | undefined {
    return this.bySession.get(session);
  }
}
