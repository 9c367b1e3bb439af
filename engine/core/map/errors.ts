// The mapping engine's coded errors: a firing either yields all its events
// or exactly one of these (the daemon turns it into an
// x.<vendor>.error.mapping_failed diagnostic and the agent's neutral bytes).
export type MapErrorCode =
  | 'invalid-payload'
  | 'malformed-json'
  | 'body-too-large'
  | 'payload-too-deep'
  | 'no-hook-name'
  | 'unknown-hook'
  | 'missing-session'
  | 'mapping-error'
  | 'payload-rejected'
  | 'invalid-type'
  | 'bad-hook-path'
  // what a surface reports about the agent's own traffic (engine/runtime/surface): the bytes passed through untouched
  | 'line-too-large'
  | 'not-jsonrpc'
  | 'duplicate-id'
  | 'join-table-full'
  | 'frames-dropped'
  | 'stream-refused'
  | 'stream-frame';

export class MapError extends Error {
  /** The agent session id the payload names (bounded), when the firing got that far: where its diagnostic lands. */
  session?: string;

  constructor(
    readonly code: MapErrorCode,
    message: string,
    public hook?: string,
  ) {
    super(message);
  }
}

export function asMapError(err: unknown): MapError {
  if (err instanceof MapError) return err;
  const e = (err ?? {}) as { code?: unknown; message?: unknown };
  return new MapError('mapping-error', `${e.code ? `${String(e.code)} ` : ''}${e.message !== undefined ? String(e.message) : String(err)}`);
}
