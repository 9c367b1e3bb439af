// What the surfaces that carry an agent's own traffic (engine/runtime/surface/: the
// tee, the stream subscriber, the OTLP receiver) see of its daemon: a firing
// in, a problem said, a writer forgotten. Only engine/runtime/daemon/ and the hosts
// that run daemons (the app wiring) hold the Daemon class itself; every other
// part reaches an agent through the relay (engine/person/push/door.ts).
import type { Daemon } from './daemon.ts';

export type AgentPort = Pick<Daemon, 'vendor' | 'handle' | 'problem' | 'forgetWriter' | 'flush' | 'surfaceKind' | 'streamSpec'>;
export type { HookReply, SurfaceWriter } from './daemon.ts';
