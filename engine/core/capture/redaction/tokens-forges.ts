// Provider credential rows (part of the table in tokens.ts, which keeps the
// rows' order): the AWS access key id (an AEP-0003 §9.4(a) floor row) and the code
// forges: GitHub and GitLab tokens.
// Each row cites the maintained rule it was written from and carries
// positive and negative examples; linear time as regex-rule.ts builds it.
import type { Rule } from './types.ts';
import { A, ALNUM, B64URL, fake, HEXL, patternRule, UPPER_NUM } from './regex-rule.ts';

export const FORGE_RULES: Rule[] = [
  patternRule({
    id: 'aws-access-key-id',
    anchor: String.raw`A3T|AKIA|ASIA|ABIA|ACCA`,
    source: 'AEP-0003 §9.4(a) floor (AKIA[0-9A-Z]{16}); gitleaks:aws-access-token (A3T/ASIA/ABIA/ACCA prefixes)',
    description: 'AWS access key id',
    pattern: `(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![${A}])`,
    left: A,
    positive: ['run with AKIAIOSFODNN7EXAMPLE please', `export AWS_ACCESS_KEY_ID=ASIA${fake(16, UPPER_NUM)}`, '["--key", "AKIAIOSFODNN7EXAMPLE"]'],
    negative: ['AKIAIOSFODNN7EXAMPL (19 chars)', 'XAKIAIOSFODNN7EXAMPLE', 'akiaiosfodnn7example'],
    adversarial: ['AKIA', 'AKIAAAAAAAAAAAAAAAAAAAAAAA'],
  }),
  patternRule({
    id: 'github-pat',
    anchor: String.raw`ghp_`,
    source: 'gitleaks:github-pat (ghp_[0-9a-zA-Z]{36}), widened to 20+ as the AEP redaction fixtures do',
    description: 'GitHub classic personal access token',
    pattern: `ghp_[${A}]{20,255}`,
    tail: A,
    positive: ['clone with ghp_AbCdEfGhIjKlMnOpQrStUvWxYz012345 now', `GITHUB_TOKEN=ghp_${fake(36)}`],
    negative: ['ghp_short123', 'see the ghp_ prefix in the docs', 'xghp_AbCdEfGhIjKlMnOpQrStUvWxYz012345'],
    adversarial: ['ghp_', 'ghp_ghp_'],
  }),
  patternRule({
    id: 'github-oauth',
    anchor: String.raw`gho_`,
    source: 'gitleaks:github-oauth (gho_[0-9a-zA-Z]{36})',
    description: 'GitHub OAuth access token',
    pattern: `gho_[${A}]{20,255}`,
    tail: A,
    positive: [`token gho_${fake(36, ALNUM, 3)}`],
    negative: ['gho_123', 'gho_ is an OAuth prefix'],
    adversarial: ['gho_'],
  }),
  patternRule({
    id: 'github-app-token',
    anchor: String.raw`gh[us]_`,
    source: 'gitleaks:github-app-token ((?:ghu|ghs)_[0-9a-zA-Z]{36})',
    description: 'GitHub App user-to-server / installation token',
    pattern: `gh[us]_[${A}]{20,255}`,
    tail: A,
    positive: [`git clone https://x-access-token:ghs_${fake(36, ALNUM, 5)}@github.com/o/r.git`, `ghu_${fake(36, ALNUM, 9)}`],
    negative: ['ghs_abc', 'laughs_all_around'],
    adversarial: ['ghs_'],
  }),
  patternRule({
    id: 'github-refresh-token',
    anchor: String.raw`ghr_`,
    source: 'gitleaks:github-refresh-token (ghr_[0-9a-zA-Z]{36})',
    description: 'GitHub refresh token',
    pattern: `ghr_[${A}]{20,255}`,
    tail: A,
    positive: [`refresh=ghr_${fake(36, ALNUM, 11)}`],
    negative: ['ghr_x', 'ghr_ tokens rotate'],
    adversarial: ['ghr_'],
  }),
  patternRule({
    id: 'github-fine-grained-pat',
    anchor: String.raw`github_pat_`,
    source: 'gitleaks:github-fine-grained-pat (github_pat_\\w{82}), widened to 20+',
    description: 'GitHub fine-grained personal access token',
    pattern: `github_pat_[${A}_]{20,255}`,
    tail: `${A}_`,
    positive: ['github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMN'],
    negative: ['github_pat_short', 'a github_pat_ prefix'],
    adversarial: ['github_pat_', 'github_pat_github_pat_'],
  }),
  patternRule({
    id: 'gitlab-pat',
    anchor: String.raw`glpat-`,
    source: 'gitleaks:gitlab-pat (glpat-[\\w-]{20}) and gitlab-pat-routable (glpat-...\\.xx.......)',
    description: 'GitLab personal / project / group access token',
    pattern: `glpat-[${A}_-]{20,300}(?:\\.[0-9a-z]{9})?`,
    tail: `${A}_-`,
    positive: ['push with glpat-AbCdEfGhIjKlMnOpQrSt', `GITLAB_TOKEN=glpat-${fake(27, B64URL)}.01${fake(7, 'abcdefghijklmnopqrstuvwxyz0123456789')}`],
    negative: ['glpat-short', 'the glpat- prefix'],
    adversarial: ['glpat-', 'glpat-glpat-'],
  }),
  patternRule({
    id: 'gitlab-other-tokens',
    anchor: String.raw`gl(?:dt|rt|cbt|ft|oas|soat|imt|agent|ffct|ptt)-`,
    source:
      'gitleaks:gitlab-deploy-token, gitlab-runner-authentication-token, gitlab-cicd-job-token, ' +
      'gitlab-feed-token, gitlab-oauth-app-secret, gitlab-scim-token, gitlab-incoming-mail-token, ' +
      'gitlab-kubernetes-agent-token, gitlab-feature-flag-client-token, gitlab-ptt',
    description: 'GitLab deploy / runner / CI job / feed / OAuth app / SCIM / mail / agent / feature-flag / trigger tokens',
    pattern: `gl(?:dt|rt|cbt|ft|oas|soat|imt|agent|ffct|ptt)-[${A}_-]{20,300}`,
    tail: `${A}_-`,
    positive: [`gldt-${fake(20, B64URL, 2)}`, `CI_JOB_TOKEN=glcbt-64_${fake(20, ALNUM, 4)}`, `glptt-${fake(40, HEXL, 6)}`, `glrt-t1_${fake(27, ALNUM, 8)}`],
    negative: ['gldt-abc', 'glrt-'],
    adversarial: ['glrt-', 'glcbt-'],
  }),
];
