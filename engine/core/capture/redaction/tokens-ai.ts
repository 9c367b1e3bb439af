// Provider credential rows (part of the table in tokens.ts, which keeps the
// rows' order): model providers (OpenAI, Anthropic, OpenAI-compatible sk- keys,
// Hugging Face) and JSON Web Tokens (an AEP-0003 §9.4(a) floor row).
// Each row cites the maintained rule it was written from and carries
// positive and negative examples; linear time as regex-rule.ts builds it.
import type { Rule } from './types.ts';
import { A, ALNUM, B64URL, fake, HEXL, patternRule } from './regex-rule.ts';

export const AI_RULES: Rule[] = [
  patternRule({
    id: 'openai-api-key',
    anchor: String.raw`sk-`,
    source:
      'gitleaks:openai-api-key; secretlint:@secretlint/secretlint-rule-openai ' +
      '(sk-proj-/sk-svcacct-/sk-admin-, legacy T3BlbkFJ); the AEP redaction fixtures (sk-proj- ' +
      '24+)',
    description: 'OpenAI API keys (project, service account, admin, legacy)',
    pattern: `sk-(?:(?:proj|svcacct|admin)-[${A}_-]{20,255}|[${A}]{20}T3BlbkFJ[${A}]{20,255})`,
    tail: `${A}_-`,
    positive: [
      'using sk-proj-AbCdEf123456GhIjKl789012 for inference',
      `OPENAI_API_KEY=sk-svcacct-${fake(58, B64URL, 47)}T3BlbkFJ${fake(58, B64URL, 49)}`,
      `sk-${fake(20, ALNUM, 51)}T3BlbkFJ${fake(20, ALNUM, 53)}`,
    ],
    negative: ['sk-proj-short', 'risk-proj-AbCdEf123456GhIjKl789012'],
    adversarial: ['sk-proj-', 'sk-proj-sk-proj-'],
  }),
  patternRule({
    id: 'anthropic-api-key',
    anchor: String.raw`sk-ant-`,
    source: 'gitleaks:anthropic-api-key, anthropic-admin-api-key; secretlint:@secretlint/secretlint-rule-anthropic (sk-ant-api0N-...AA)',
    description: 'Anthropic API / admin / OAuth keys (sk-ant-...)',
    pattern: `sk-ant-(?:(?:api|admin|oat|ort|sid)\\d{2}-)?[${A}_-]{20,255}`,
    tail: `${A}_-`,
    positive: [
      'deploy with key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCD',
      'no: the key is sk-ant-abcdefghijklmnopqrstuvwx, use staging',
      `ANTHROPIC_API_KEY=sk-ant-api03-${fake(93, B64URL, 55)}AA`,
      `sk-ant-admin01-${fake(93, B64URL, 57)}AA`,
    ],
    negative: ['sk-ant-api03-short', 'sk-ant-'],
    adversarial: ['sk-ant-api03-'],
  }),
  patternRule({
    id: 'generic-sk-key',
    anchor: String.raw`sk-`,
    source:
      'documented key format of OpenAI-compatible providers (DeepSeek sk-<32 hex>, OpenRouter ' +
      'sk-or-v1-<64 hex>); gitleaks:openai-api-key (the sk- family); the earlier hookmap floor ' +
      'sk-[A-Za-z0-9_-]{20,}',
    description: 'sk-prefixed API keys of OpenAI-compatible providers (20+ token characters with a digit)',
    pattern: `sk-(?:or-v1-)?[${A}_-]{20,255}`,
    tail: `${A}_-`,
    accept: (t) => /\d/.test(t),
    positive: [`export DEEPSEEK_API_KEY=sk-${fake(32, HEXL, 59)}`, `sk-or-v1-${fake(64, HEXL, 61)}`, `key sk-${fake(20)}x1 end`],
    negative: ['sk-learn is a library', 'task-0123456789abcdef0123456789abcdef01', 'sk-learn-pipeline-preprocessing-steps'],
    adversarial: ['sk-', 'sk-sk-'],
  }),
  patternRule({
    id: 'jwt',
    anchor: String.raw`eyJ`,
    source: 'AEP-0003 §9.4(a) floor (JWT-shaped eyJ...`.`...`.`...); gitleaks:jwt',
    description: 'JSON Web Token (three base64url segments, the first a JSON header)',
    // recognised from its first two segments, so a token still arriving in fragments is already a match
    pattern: `eyJ[${A}_-]{10,8192}\\.[${A}_-]{2,8192}(?:\\.[${A}_=-]{0,8192})?`,
    left: `${A}_-`,
    tail: `${A}_=.-`,
    positive: [
      'session eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.SflKxwRJSMeKKF2QT4fwpM done',
      'tok eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig_part end',
      `id_token=eyJ${fake(30, B64URL, 63)}.eyJ${fake(80, B64URL, 65)}.`,
    ],
    negative: ['eyJhbGciOiJIUzI1NiJ9 alone (no dots)', 'keyJump.a.b', 'heyJude.let.it.be'],
    adversarial: ['eyJ', 'eyJa.', 'eyJaaaaaaaaaa.aa.', 'eyJ' + 'a'.repeat(50) + '.'],
  }),
  patternRule({
    id: 'huggingface-token',
    anchor: String.raw`hf_|api_org_`,
    source: 'gitleaks:huggingface-access-token, huggingface-organization-api-token; secretlint:@secretlint/secretlint-rule-huggingface (hf_[a-zA-Z]{34})',
    description: 'Hugging Face access token',
    pattern: `(?:hf_|api_org_)[${A}]{34,255}`,
    tail: A,
    positive: [`HF_TOKEN=hf_${fake(34, 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ', 67)}`, `api_org_${fake(34, 'abcdefghijklmnopqrstuvwxyz', 69)}`],
    negative: ['hf_hub_download', 'hf_transfer'],
    adversarial: ['hf_'],
  }),
];
