// The floor's rows about where a command reaches (issue 22): recursive
// deletes of home, `/` or outside the project, writes to shell start-up
// files, anything naming ~/.ssh, credential and token files, git hooks, and
// writes outside the project through redirection. Paths are read lexically
// (paths.ts); a path the shell decides at run time counts as a hit.
import { posix } from 'node:path';
import type { ReadCommand } from './commands.ts';
import { allWords, firstHit, hasOption, operands, writeTargets, type FloorRow } from './floor-row.ts';
import { inside, outsideProject, placeOf, segments } from './paths.ts';
import type { ShellWord } from './words.ts';

const isRecursiveRm = (c: ReadCommand) => c.name === 'rm' && hasOption(c, ['r', 'R'], ['--recursive']);

/** `find ROOTS… -delete` deletes below its roots (`.` when none is given) */
function findDeleteRoots(c: ReadCommand): ShellWord[] | undefined {
  if (c.name !== 'find' || !c.words.some((w) => w.text === '-delete')) return undefined;
  const rest = c.words.slice(1);
  const end = rest.findIndex((w) => w.text.startsWith('-') || w.text === '(' || w.text === '!');
  const roots = end < 0 ? rest : rest.slice(0, end);
  return roots.length ? roots : [{ text: '.', source: '.', literal: true, pattern: false, home: false }];
}

export const recursiveDelete: FloorRow = {
  id: 'recursive-delete',
  why: 'a recursive delete of home, / or outside the project',
  hits: [
    'find ~ -name x -delete',
    'find / -delete',
    'find . -exec rm -rf {} +',
    'rm -rf ~',
    'rm -rf /',
    'rm -rf ../x',
    'rm -r -f /home/dev',
    'rm -rf "$HOME"',
    'rm -rf $DIR/build',
    'rm -rf /*',
    'rm -R ~/*',
    'rm --recursive /etc',
    'find . -name x | xargs rm -rf',
    'rm -rf .',
    'cd .. && rm -rf project2',
    'rm -rf -- ~/',
  ],
  misses: [
    'rm -rf build',
    'rm -rf ./dist/*',
    'rm -f ~/x.txt',
    'rm ../x',
    'rm -rf /home/dev/project/node_modules',
    'echo rm -rf ~',
    'find . -name "*.o" -delete',
    'find src -name x',
  ],
  check(reading, ctx) {
    const deletes = reading.commands.flatMap((c) =>
      isRecursiveRm(c) ? [{ c, targets: operands(c), whole: true }] : findDeleteRoots(c) ? [{ c, targets: findDeleteRoots(c)!, whole: false }] : [],
    );
    return firstHit(deletes, ({ c: cmd, targets, whole }) => {
      if (cmd.via === 'xargs' || cmd.via === 'find') return `rm -r on paths ${cmd.via} chooses at run time`;
      return firstHit(targets, (word) => {
        const place = placeOf(word, ctx, reading.changesDirectory);
        if (place.kind === 'absolute') {
          if (place.path === '/') return 'deletes /';
          if (inside(ctx.home, place.path)) return `deletes ${place.path}, which holds home`;
          // rm -r of the project folder deletes it; find in it deletes only what matches
          if (whole && ctx.cwd && inside(posix.resolve(ctx.cwd), place.path)) return `deletes ${place.path}, which holds the project`;
        }
        return outsideProject(place, ctx);
      });
    });
  },
};

export const STARTUP_FILES = [
  '.bashrc',
  '.bash_profile',
  '.bash_login',
  '.bash_logout',
  '.bash_aliases',
  '.profile',
  '.zshrc',
  '.zshenv',
  '.zprofile',
  '.zlogin',
  '.zlogout',
  '.kshrc',
  '.cshrc',
  '.tcshrc',
  '.xprofile',
  '.xinitrc',
  'config.fish',
];
export const SYSTEM_STARTUP = ['/etc/profile', '/etc/profile.d', '/etc/bash.bashrc', '/etc/bashrc', '/etc/zshrc', '/etc/zsh', '/etc/environment'];

export const startupFile: FloorRow = {
  id: 'startup-file',
  why: 'a write to a shell start-up file (it runs in every new shell)',
  hits: [
    'echo x >> ~/.bashrc',
    'echo "alias ls=rm" > ~/.zshrc',
    'tee -a ~/.profile < f',
    'cat x | tee ~/.bash_profile',
    'cp evil ~/.zshenv',
    'echo x >> "$HOME/.bashrc"',
    'echo x >> /etc/profile.d/x.sh',
    'printf x >> ~/.config/fish/config.fish',
    'echo x 2>&1 >> ~/.zprofile',
    '> ~/.bashrc',
    "sed -i 's/a/b/' ~/.bashrc",
  ],
  misses: ['cat ~/.bashrc', 'grep alias ~/.zshrc', 'echo .bashrc', 'cp ~/.bashrc backup.txt'],
  check(reading, ctx) {
    return firstHit(reading.commands.flatMap(writeTargets), (word) => {
      const name = posix.basename(word.text);
      if (STARTUP_FILES.includes(name)) return `writes ${word.source}`;
      const place = placeOf(word, ctx, reading.changesDirectory);
      if (place.kind === 'absolute' && SYSTEM_STARTUP.some((p) => inside(place.path, p))) return `writes ${place.path}`;
      return undefined;
    });
  },
};

function names(word: ShellWord, sequence: string[]): boolean {
  const parts = segments(word);
  return parts.some((_, i) => sequence.every((s, j) => parts[i + j] === s));
}

export const sshFolder: FloorRow = {
  id: 'ssh',
  why: 'touches ~/.ssh (keys, authorized_keys, ssh config)',
  hits: [
    'cat ~/.ssh/id_rsa',
    'ls ~/.ssh',
    'echo key >> ~/.ssh/authorized_keys',
    'cp x /home/dev/.ssh/config',
    'scp -i ~/.ssh/deploy f host:',
    'tar czf k.tgz .ssh',
    'cat $HOME/.ssh/id_ed25519.pub',
  ],
  misses: ['ssh host ls', 'ssh-keygen -l -f key.pub', 'ls .sshx', 'echo ssh'],
  check(reading) {
    return firstHit(allWords(reading), (w) => (names(w, ['.ssh']) || names(w, ['authorized_keys']) ? `names ${w.source}` : undefined));
  },
};

export const CREDENTIALS = [
  ['.aws', 'credentials'],
  ['.aws', 'config'],
  ['.netrc'],
  ['_netrc'],
  ['.git-credentials'],
  ['.npmrc'],
  ['.pypirc'],
  ['.docker', 'config.json'],
  ['.kube', 'config'],
  ['gh', 'hosts.yml'],
  ['.gnupg'],
  ['.password-store'],
  ['.vault-token'],
  ['.hookmap'],
];
/** `.env` and `.env.local` hold a project's secrets; these hold only their shape */
const ENV_TEMPLATES = ['.example', '.sample', '.template', '.dist'];
export const isEnvFile = (s: string) => s === '.env' || (s.startsWith('.env.') && !ENV_TEMPLATES.some((t) => s.endsWith(t)));

export const credentials: FloorRow = {
  id: 'credentials',
  why: "touches a credential or token file (cloud, registry, git and hookmap's own, a project's .env)",
  hits: [
    'cat ~/.aws/credentials',
    'cat ~/.netrc',
    'cp ~/.npmrc /tmp/x',
    'cat .env',
    'source .env.local',
    'echo TOKEN=x >> .env',
    'cat ~/.docker/config.json',
    'cat ~/.hookmap/token',
    'cat ~/.config/gh/hosts.yml',
    'grep -r key ~/.gnupg',
  ],
  misses: ['cat .env.example', 'cp .env.sample x', 'echo env', 'ls ~/.aws', 'cat config/credentials.md', 'npm run env'],
  check(reading) {
    return firstHit(allWords(reading), (w) => {
      if (segments(w).some(isEnvFile)) return `names ${w.source}`;
      return CREDENTIALS.some((seq) => names(w, seq)) ? `names ${w.source}` : undefined;
    });
  },
};

export const gitHooks: FloorRow = {
  id: 'git-hooks',
  why: 'touches git hooks (they run on every commit, checkout or push)',
  hits: [
    'echo x > .git/hooks/pre-commit',
    'cp x .git/hooks/post-checkout',
    'chmod +x .git/hooks/pre-push',
    'git config core.hooksPath /tmp/h',
    'git -c core.hooksPath=h commit',
    'ln -s ../../x .git/hooks/pre-commit',
    'cat ./sub/.git/hooks/x',
  ],
  misses: ['git commit -m hooks', 'ls hooks', 'cat .git/config', 'git config user.name x'],
  check(reading) {
    return firstHit(allWords(reading), (w) => {
      if (names(w, ['.git', 'hooks'])) return `names ${w.source}`;
      return segments(w).some((s) => s.toLowerCase() === 'core.hookspath') ? 'sets core.hooksPath' : undefined;
    });
  },
};

/** files a write there touches nothing */
export const DEVICES = ['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/tty', '/dev/fd'];

export const writeOutside: FloorRow = {
  id: 'write-outside',
  why: 'writes outside the project (redirection, tee or copy), with the project folder known',
  hits: [
    'echo x > /etc/hosts',
    'echo x > ../other/f',
    'cat a >> ~/notes.txt',
    'echo x | tee /tmp/f',
    'echo x > "$OUT"',
    'cd /tmp && echo x > f',
    'cp a ../../b',
    'echo x > /home/dev/project/../x',
    'cp -t /tmp a b',
    'mv --target-directory=/srv a',
    'dd if=a of=/dev/sda',
  ],
  misses: [
    'echo x > out.txt',
    'npm test 2>&1 | tee log/test.txt',
    'echo x > /dev/null',
    'cmd 2>/dev/null',
    'echo x >&2',
    'cat a > ./b/c',
    'echo x > /home/dev/project/f',
    'cp -t dist a b',
    'dd if=/dev/zero of=img bs=1M count=1',
  ],
  check(reading, ctx) {
    if (!ctx.cwd) return undefined;
    return firstHit(reading.commands.flatMap(writeTargets), (word) => {
      const place = placeOf(word, ctx, reading.changesDirectory);
      if (place.kind === 'absolute' && DEVICES.some((d) => inside(place.path, d))) return undefined;
      return outsideProject(place, ctx);
    });
  },
};
