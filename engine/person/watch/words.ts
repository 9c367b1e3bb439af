// What the watch's attention says (docs/watch.md): who waits, where, for
// what, and why no hookmap card asked, in words a person acts on. Only
// structural facts (the agent id, the project label, the tool's name, the
// sign), so the prompt is fit for capture `metadata` (AEP-0003 §9.2).

export type Sign =
  | { kind: 'waiting'; reason: string; hook?: string; tool?: string }
  | { kind: 'window'; tool?: string; form?: boolean }
  | { kind: 'call'; minutes: number; tool?: string }
  | { kind: 'silent'; minutes: number };

export interface Who {
  agent: string;
  project?: string;
  session: string;
}

const NAME_MAX = 64;
/**
 * A name as the words may carry it: letters, digits and `_ . @ + -` only, at most NAME_MAX characters. The words are
 * shown at every capture, and an emitter names its own tools and project: no link, path or markup gets through.
 */
const tidy = (s: string | undefined): string | undefined => {
  const t = s?.replace(/[^\w.@+-]+/g, ' ').trim();
  return t ? t.slice(0, NAME_MAX).trim() : undefined;
};
const mins = (m: number) => (m >= 1 ? `${Math.round(m)} min` : `${Math.round(m * 60)} s`);

export interface Words {
  kind: 'permission' | 'input' | 'other';
  prompt: string;
  tool?: string;
  /** The project label as the words carry it. */
  project?: string;
}

export function wordsOf(sign: Sign, who: Who): Words {
  const project = tidy(who.project);
  return { ...said(sign, who, project), ...(project ? { project } : {}) };
}

function said(sign: Sign, who: Who, project: string | undefined): Omit<Words, 'project'> {
  const where = `${tidy(who.agent) ?? 'an agent'} in ${project ?? `session ${tidy(who.session.slice(0, 12)) ?? '?'}`}`;
  const tool = 'tool' in sign ? tidy(sign.tool) : undefined;
  switch (sign.kind) {
    case 'window':
      return sign.form
        ? { kind: 'input', prompt: `${where} waits at its terminal for an answer to its question: hookmap's window ended`, tool }
        : { kind: 'permission', prompt: `${where} waits at its terminal for ${tool ?? 'tool'} permission: hookmap's window ended`, tool };
    case 'waiting':
      if (sign.reason === 'permission')
        return { kind: 'permission', prompt: `${where} waits at its terminal for ${tool ?? 'tool'} permission: no hookmap card asks it`, tool };
      if (sign.reason === 'question') return { kind: 'input', prompt: `${where} waits at its terminal for an answer to its question: no hookmap card asks it` };
      return { kind: 'input', prompt: `${where} waits at its terminal for your input` };
    case 'call':
      return {
        kind: 'other',
        prompt: `${where}: ${tool ?? 'a tool'} was asked for ${mins(sign.minutes)} ago and has not finished; it may wait at its terminal`,
        tool,
      };
    case 'silent':
      return { kind: 'other', prompt: `${where}: its run has said nothing for ${mins(sign.minutes)}; it may wait at its terminal` };
  }
}
