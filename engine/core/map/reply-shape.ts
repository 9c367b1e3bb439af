// How a reply reaches a command hook besides its bytes: its exit code and the
// stream carrying the bytes (the daemon says them in x-hookmap-exit and
// x-hookmap-stream; docs/authoring.md, "Agents that read an exit code"). A
// part a decision does not name is the hook's, else the descriptor's; stdout
// is never written out (an absent stream is stdout: the replies of every
// descriptor without a shape stay what they were).
import type { Descriptor, ReplyShape, Stream } from '../descriptor/types.ts';

/** An exit code and, when it is not stdout, the stream. */
export interface Shape {
  exit: number;
  stream?: 'stderr';
}

/** `over` laid on `base`: its exit code and stream where it names them. */
export function shaped<T extends Shape>(base: T, over: ReplyShape | undefined): T {
  if (!over) return base;
  const out = { ...base, exit: over.exit ?? base.exit };
  return withStream(out, over.stream ?? base.stream);
}

/** `r` with `stream` (stdout: no stream key). */
export function withStream<T extends { stream?: 'stderr' }>(r: T, stream: Stream | undefined): T {
  const out = { ...r };
  if (stream === 'stderr') out.stream = 'stderr';
  else delete out.stream;
  return out;
}

/** The shape of `hook`'s neutral reply (an unknown hook: the descriptor's). */
export function neutralShape(d: Pick<Descriptor, 'replies' | 'hooks'>, hook: string | undefined): Shape {
  const own = hook ? d.hooks.get(hook)?.shape : undefined;
  return withStream<Shape>({ exit: own?.exit ?? d.replies.exitCode }, own?.stream ?? d.replies.stream);
}

/** A decided (decide entry) reply's shape: the entry's parts, else the hook's neutral shape. */
export function decidedShape(d: Pick<Descriptor, 'replies' | 'hooks'>, hook: string | undefined, entry: ReplyShape): Shape {
  return shaped(neutralShape(d, hook), entry);
}
