// What every view of the signed-in inbox reads: the stream's picture, the
// relay connection, and who is signed in (a read-only principal gets no
// answer, steer or stop controls; the relay refuses them anyway).
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Principal } from '../model/api.ts';
import type { Connection } from '../model/connection.ts';
import type { Store } from '../model/store.ts';

export interface AppCtx {
  store: Store;
  conn: Connection;
  me: Principal;
}

export const Ctx = createContext<AppCtx | null>(null);

export function useApp(): AppCtx {
  const c = useContext(Ctx);
  if (!c) throw new Error('inbox view outside the app context');
  return c;
}

/** May this person answer, steer and stop (control scope), and does the relay route commands at all? */
export function useCanControl(): { can: boolean; why?: string } {
  const { me, conn } = useApp();
  if (!me.scopes.includes('control')) return { can: false, why: `Signed in as ${me.name} with read access: you can watch, not answer.` };
  if (conn.routing.value === false) return { can: false, why: 'The relay is watch-only (started with --no-auth): answers would be refused.' };
  return { can: true };
}
