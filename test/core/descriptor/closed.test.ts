// The whole descriptor is compiled (issue 16): every object in the
// descriptor schema is closed (unknown keys are errors) except the few that
// hold free data by design; the setup shapes the schema allows are exactly
// the ones engine/runtime/setup implements; and the compiled Descriptor carries no
// untyped `spec` for anything downstream to re-read.
import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DESCRIPTOR_SCHEMA } from '../../../engine/core/descriptor/compile.ts';
import { listVendors, loadVendor, ROOT } from '../../../engine/core/descriptor/registry.ts';
import type { Descriptor } from '../../../engine/core/descriptor/types.ts';
import { FORMATS } from '../../../engine/runtime/setup/formats/index.ts';

/** Objects that hold free data by design: values, constants, moments, operator config. */
const FREE = new Set([
  '#/$defs/template/anyOf/1', // a template mapping: its keys are the payload's
  '#/$defs/constant/anyOf/5', // a constant object written as is
  '#/$defs/surface/properties/stream/properties/auth/properties/first_message', // a frame sent as is
  '#/properties/commands/additionalProperties/properties/next_turn/properties/register', // handler fields written as is ({asyncRewake: true})
]);

function openObjects(node: any, at: string, out: string[]): void {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    node.forEach((n, i) => openObjects(n, `${at}/${i}`, out));
    return;
  }
  const isObject = node.type === 'object' || (node.properties && !node.type);
  if (isObject && node.additionalProperties === undefined && !FREE.has(at)) out.push(at);
  if (node.additionalProperties === true && !FREE.has(at)) out.push(at);
  for (const [k, v] of Object.entries(node)) if (v && typeof v === 'object') openObjects(v, `${at}/${k}`, out);
}

describe('the descriptor schema', () => {
  it('closes every object but the free-data ones', () => {
    const open: string[] = [];
    openObjects(DESCRIPTOR_SCHEMA, '#', open);
    expect(open).toEqual([]);
  });
  it('allows exactly the setup shapes engine/runtime/setup implements', () => {
    expect([...DESCRIPTOR_SCHEMA.$defs.setupShape.enum].sort()).toEqual(Object.keys(FORMATS).sort());
  });
});

describe('the compiled descriptor', () => {
  it('has no untyped spec: its type names no `any` and no `spec`', () => {
    const src = readFileSync(`${ROOT}engine/core/descriptor/types.ts`, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
    expect(src).not.toMatch(/\bany\b/);
    expect(src).not.toMatch(/\bspec\s*[?]?:/);
    // a type-level check too: `spec` is not a key of Descriptor
    const noSpec: 'spec' extends keyof Descriptor ? false : true = true;
    expect(noSpec).toBe(true);
  });
  it('keeps nothing of the YAML for later readers', () => {
    for (const agent of listVendors()) expect(Object.keys(loadVendor(agent)), agent).not.toContain('spec');
  });
  it('nothing downstream reads a raw descriptor', () => {
    // the only YAML reader outside the loader is the portable Node shim's fallback (it runs without the engine)
    const hits = execSync(`grep -rnE "\\b(d|descriptor)\\.spec\\b" engine codegen || true`, { cwd: ROOT, encoding: 'utf8' }).trim();
    expect(hits).toBe('');
  });
});
