// doctor: hookmap's home and what it holds are its owner's alone (engine/core/io/home-modes.ts).
import { existsSync } from 'node:fs';
import { looseModes } from '../../core/io/home-modes.ts';
import type { Finding } from './types.ts';

export function checkHomeModes(home: string): Finding[] {
  if (!existsSync(home)) return [];
  const { loose, seen, partial } = looseModes(home);
  if (!loose.length)
    return [{ area: 'home', subject: home, status: 'ok', message: `${seen} entries, none readable by others${partial ? ' (checked in part)' : ''}` }];
  // inside a home nobody else may enter, a file's own bits expose nothing (yet): worth a note, not a warning
  const open = loose.some((e) => e.path === home);
  const named = loose
    .slice(0, 5)
    .map((e) => `${e.path} (${e.mode.toString(8).padStart(4, '0')})`)
    .join(', ');
  return [
    {
      area: 'home',
      subject: home,
      status: open ? 'warn' : 'info',
      message: open
        ? `${loose.length} entries others on this machine can read or enter: ${named}${loose.length > 5 ? ', ...' : ''} ` +
          '(the home holds tokens, keys and what agents did)'
        : `${loose.length} entries carry group or other permissions (${named}${loose.length > 5 ? ', ...' : ''}), unreachable while the home itself stays 0700`,
      fix: `chmod -R go-rwx ${home} (hookmap up does it at its start)`,
    },
  ];
}
