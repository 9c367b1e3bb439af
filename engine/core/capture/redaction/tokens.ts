// Provider credential formats: one row per rule, each citing the maintained
// rule it was written from (gitleaks config/gitleaks.toml at b58d3f10,
// secretlint packages at 18346ba3, or the vendor's documented format) and
// carrying positive and negative examples. Patterns are our own re-writes:
// bounded quantifiers, a lookbehind boundary, unbounded tails extended in
// code (regex-rule.ts), so each runs in linear time. Beyond the AEP-0003
// §9.4(a) floor except where a row says "floor".
// The rows live in one file per provider family; the table's order is
// theirs, concatenated here (on equal spans the earlier row names the match).
import type { Rule } from './types.ts';
import { AI_RULES } from './tokens-ai.ts';
import { FORGE_RULES } from './tokens-forges.ts';
import { INFRA_RULES } from './tokens-infra.ts';
import { PLATFORM_RULES } from './tokens-platforms.ts';
import { SAAS_RULES } from './tokens-saas.ts';

export const TOKEN_RULES: Rule[] = [...FORGE_RULES, ...PLATFORM_RULES, ...AI_RULES, ...INFRA_RULES, ...SAAS_RULES];
