// `hookmap tokens add|list|revoke`: named tokens with scopes in
// $HOOKMAP_HOME/tokens.json (engine/runtime/auth/tokens.ts). A running relay reads
// the file as it changes: a new token works at once, a revoked one is
// refused at once, and the relay closes its open connections.
import { closeSync, existsSync, openSync, writeSync } from 'node:fs';
import { ownerTokenPath, addToken, loadTokens, OWNER, revokeToken, TokenFileError } from '../../runtime/auth/tokens.ts';
import { SCOPES } from '../../runtime/auth/principal.ts';
import { resolveTarget } from '../config.ts';
import { ArgError, parseArgs } from '../args.ts';

const USAGE = `hookmap tokens add <name> [--scope ${SCOPES.join(',')}] [--out FILE]   a new named token (default scope: read)
hookmap tokens list [--json]                                       names, scopes, created (never the tokens)
hookmap tokens revoke <name>                                       refused at once, open connections closed
Scopes: read (the stream), emit (publish events: daemons), control (answer, cancel; implies read).
The token is printed once (or written to --out, 0600) and never stored: only its SHA-256 is kept.
`;

export async function run(argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  const home = resolveTarget(process.env).home;
  try {
    if (verb === 'add') return add(home, rest);
    if (verb === 'list') return list(home, rest);
    if (verb === 'revoke') return revoke(home, rest);
    if (verb === '--help' || verb === '-h' || verb === undefined) {
      process.stdout.write(USAGE);
      return verb === undefined ? 2 : 0;
    }
    throw new ArgError(`unknown verb '${verb}' (add, list, revoke)`);
  } catch (e) {
    if (e instanceof ArgError || e instanceof TokenFileError || /scope/.test((e as Error).message)) {
      process.stderr.write(`hookmap tokens: ${(e as Error).message}\n`);
      return 2;
    }
    throw e;
  }
}

function add(home: string, argv: string[]): number {
  const { flags, positionals } = parseArgs(argv, { scope: { type: 'string' }, out: { type: 'string' } });
  if (positionals.length !== 1) throw new ArgError('usage: hookmap tokens add <name> [--scope read,control] [--out FILE]');
  const { token, entry } = addToken(home, positionals[0], (flags.scope as string | undefined) ?? 'read');
  const out = flags.out as string | undefined;
  if (out) {
    const fd = openSync(out, 'wx', 0o600);
    try {
      writeSync(fd, `${token}\n`);
    } finally {
      closeSync(fd);
    }
    process.stderr.write(`token '${entry.name}' (${entry.scopes.join(', ')}) written to ${out} (0600); give it to its holder as HOOKMAP_TOKEN_FILE\n`);
  } else {
    process.stdout.write(`${token}\n`);
    process.stderr.write(
      `token '${entry.name}' (${entry.scopes.join(', ')}): shown once, only its digest is kept. Its holder sets HOOKMAP_TOKEN (or HOOKMAP_TOKEN_FILE).\n`,
    );
  }
  return 0;
}

function list(home: string, argv: string[]): number {
  const { flags } = parseArgs(argv, { json: { type: 'boolean' } });
  const tokens = loadTokens(home);
  const owner = existsSync(ownerTokenPath(home));
  const rows = [
    ...(owner ? [{ name: OWNER, scopes: [...SCOPES], created: '', file: ownerTokenPath(home) }] : []),
    ...tokens.map((t) => ({ name: t.name, scopes: t.scopes, created: t.created })),
  ];
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(rows)}\n`);
    return 0;
  }
  if (!rows.length) process.stdout.write(`no tokens yet (hookmap up creates ${ownerTokenPath(home)})\n`);
  for (const r of rows) process.stdout.write(`${r.name.padEnd(20)} ${r.scopes.join(',').padEnd(18)} ${'file' in r ? r.file : r.created}\n`);
  return 0;
}

function revoke(home: string, argv: string[]): number {
  const { positionals } = parseArgs(argv, {});
  if (positionals.length !== 1) throw new ArgError('usage: hookmap tokens revoke <name>');
  const name = positionals[0];
  if (name === OWNER)
    throw new ArgError(
      `the owner token is ${ownerTokenPath(home)}: to replace it, write a new token over that ` +
        `file (one line, 0600): a running up refuses the old one at once and keeps its own links; ` +
        `or delete it and start up again (a new one is created)`,
    );
  if (!revokeToken(home, name)) {
    process.stderr.write(`hookmap tokens: no token named '${name}'\n`);
    return 1;
  }
  process.stdout.write(`revoked '${name}': a running relay refuses it from now on and closes its open connections\n`);
  return 0;
}
