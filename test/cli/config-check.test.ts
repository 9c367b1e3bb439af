// The up config's one spec, end to end: `hookmap config check` on every
// documented up config example (README.md, docs/*.md) and on the named bad
// files of fixtures/up-config/ (each finding coded and located, golden in
// <name>.expect.txt); the published JSON Schema and reference page are the
// generators' output and accept every documented example.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ConfigError, loadUpConfig } from '../../engine/app/up-config.ts';
import { formatFinding } from '../../engine/app/up-check.ts';
import { UP_CONFIG_ENV, UpConfigSchema } from '../../engine/app/up-schema.ts';
import { FIXTURES_DIR, ROOT } from '../../engine/core/descriptor/registry.ts';
import { upConfigSchema } from '../../codegen/types.ts';
import { UP_CONFIG_DOC, upConfigDoc } from '../../codegen/reference-up-config.ts';
import { runCli } from '../helpers/cli.ts';

const CORPUS = join(FIXTURES_DIR, 'up-config');
const KEYS = new Set(Object.keys(UpConfigSchema.shape));

/** Every fenced yaml block of README.md and docs/*.md whose top-level keys are all up config keys. */
function documentedUpConfigs(): { at: string; body: string }[] {
  const files = [
    'README.md',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  const out: { at: string; body: string }[] = [];
  for (const file of files) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const m of text.matchAll(/^```yaml\n([\s\S]*?)^```/gm)) {
      let doc: unknown;
      try {
        doc = parse(m[1]);
      } catch {
        continue;
      }
      if (doc && typeof doc === 'object' && !Array.isArray(doc) && Object.keys(doc).length && Object.keys(doc).every((k) => KEYS.has(k)))
        out.push({ at: `${file}:${text.slice(0, m.index).split('\n').length}`, body: m[1] });
    }
  }
  return out;
}

const tmp = mkdtempSync(join(tmpdir(), 'hookmap-config-check-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('hookmap config check', () => {
  const examples = documentedUpConfigs();
  it('passes every documented up config example (README.md, docs/*.md)', async () => {
    expect(examples.length).toBeGreaterThanOrEqual(5);
    const files = examples.map((x, i) => {
      const f = join(tmp, `example-${i}.yaml`);
      writeFileSync(f, x.body);
      return f;
    });
    // a `key_env` names a variable: the example's own, set
    const env = { ...process.env, ...Object.fromEntries(examples.flatMap((x) => [...x.body.matchAll(/key_env: (\w+)/g)].map((m) => [m[1], 'example-key']))) };
    const r = await runCli(['config', 'check', ...files], env);
    expect(r.stdout + r.stderr, examples.map((x, i) => `${files[i]}: ${x.at}`).join('\n')).toBe(files.map((f) => `ok: ${f}\n`).join(''));
    expect(r.code).toBe(0);
  });

  it('a typo (did-you-mean), a wrong type and an unknown channel: each finding with its code and line; exit 1', async () => {
    const names = ['up-unknown-key', 'up-wrong-type', 'up-unknown-channel'];
    const r = await runCli(['config', 'check', ...names.map((n) => join(CORPUS, `${n}.yaml`))], process.env);
    expect(r.code).toBe(1);
    const lines = r.stdout.trim().split('\n');
    const at = (n: string) => lines.find((l) => l.startsWith(join(CORPUS, `${n}.yaml`)))!;
    expect(at('up-unknown-key')).toMatch(/:2:1 unknown-key: unknown key 'portt'\. Did you mean `port`\?/);
    expect(at('up-wrong-type')).toMatch(/:3:23 wrong-type: attention_timeout_ms must be a number \(got "55 seconds"\)$/);
    expect(at('up-unknown-channel')).toMatch(/:3:3 unknown-channel: channels: unknown channel 'telegarm'\. Did you mean `telegram`\?/);
    expect(r.stderr).toMatch(/3 findings/);
  });

  it('--json: the findings as data', async () => {
    const r = await runCli(['config', 'check', '--json', join(CORPUS, 'up-unknown-channel.yaml')], process.env);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({
      ok: false,
      findings: [expect.objectContaining({ code: 'unknown-channel', line: 3, col: 3, path: 'channels.telegarm' })],
    });
  });

  it('exits 2 on a usage error or a file it cannot read', async () => {
    expect((await runCli(['config'], process.env)).code).toBe(2);
    expect((await runCli(['config', 'check'], process.env)).code).toBe(2);
    expect((await runCli(['config', 'check', join(tmp, 'nope.yaml')], process.env)).code).toBe(2);
  });
});

describe('fixtures/up-config: each bad file gives exactly its golden findings', () => {
  const names = readdirSync(CORPUS)
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => f.replace(/\.yaml$/, ''));
  it('is a corpus covering every config code', () => expect(names.length).toBeGreaterThanOrEqual(8));
  for (const name of names)
    it(name, () => {
      const file = `fixtures/up-config/${name}.yaml`;
      let got = 'accepted\n';
      try {
        loadUpConfig(join(ROOT, file), {});
      } catch (e) {
        if (!(e instanceof ConfigError)) throw e;
        got = `${e.findings.map((f) => formatFinding({ ...f, file: relative(ROOT, f.file) } as never)).join('\n')}\n`;
      }
      expect(got).toBe(readFileSync(join(CORPUS, `${name}.expect.txt`), 'utf8'));
    });
});

describe('the published schema and reference page', () => {
  it("schemas/up-config.schema.json and docs/reference/up-config.md are the generators' output (hookmap codegen / hookmap docs)", () => {
    expect(readFileSync(join(ROOT, 'schemas/up-config.schema.json'), 'utf8')).toBe(upConfigSchema());
    expect(readFileSync(join(ROOT, UP_CONFIG_DOC), 'utf8')).toBe(upConfigDoc());
  });
  it('the JSON Schema accepts every documented example and refuses the corpus typo', () => {
    const Ajv2020 = ((Ajv2020Module as any).default ?? Ajv2020Module) as new (o: object) => {
      compile(s: object): ((v: unknown) => boolean) & { errors?: unknown };
    };
    const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as (ajv: unknown) => void;
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    const validate = ajv.compile(JSON.parse(upConfigSchema()));
    for (const x of documentedUpConfigs()) expect(validate(parse(x.body)), `${x.at}: ${JSON.stringify(validate.errors)}`).toBe(true);
    expect(validate(parse(readFileSync(join(CORPUS, 'up-unknown-key.yaml'), 'utf8')))).toBe(false);
  });
  it('every environment variable the schema names is read at the CLI edge (engine/cli/config.ts), and names a key of the file', () => {
    const edge = readFileSync(join(ROOT, 'engine/cli/config.ts'), 'utf8');
    for (const { key, env } of UP_CONFIG_ENV) {
      expect(KEYS.has(key.split('.')[0]), key).toBe(true);
      // read as `env.NAME`, or by name through a helper (`integer(env, 'NAME')`)
      if (!env.includes('<')) expect(edge.includes(`env.${env}`) || edge.includes(`env, '${env}')`), env).toBe(true);
    }
  });
});
