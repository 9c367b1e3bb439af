// Parses a descriptor's YAML keeping source positions, so every later error
// (schema, expression, event type) can point at file:line:col.
import type { Node } from 'yaml';
import { yaml } from '../text/yaml-lazy.ts';
import type { DescriptorError } from './errors.ts';
import { pathString } from './errors.ts';
import { cachedYamlData } from './yaml-cache.ts';

export interface NodePos {
  line: number;
  col: number;
  /** scalar style, for expression offsets */ style?: string;
  offset: number;
}

export interface YamlSource {
  file: string;
  text: string;
  value: unknown;
  positions: Map<string, NodePos>;
  /** Location of a path, or of its nearest located ancestor. */
  locate(path: (string | number)[]): NodePos;
  /** Location of the KEY of a mapping entry (for unknown keys), else as locate(). */
  locateKey(path: (string | number)[]): NodePos;
  /** Location of character `index` inside the expression scalar at `path`. */
  locateInScalar(path: (string | number)[], index: number): { line: number; col: number };
  errors: DescriptorError[];
}

/** What parsing yields, before anything refers to a file: plain data (engine/core/descriptor/yaml-cache.ts keeps it by content hash). */
export interface YamlData {
  value: unknown;
  positions: [string, NodePos][];
  keyPositions: [string, NodePos][];
  errors: Omit<DescriptorError, 'file'>[];
}

export function parseYamlData(text: string): YamlData {
  const { LineCounter, parseDocument, isMap, isSeq, isScalar, isPair } = yaml();
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, uniqueKeys: true, prettyErrors: false });
  const errors: Omit<DescriptorError, 'file'>[] = [];
  for (const e of [...doc.errors]) {
    // prettyErrors: false leaves linePos unset; the offset is always there
    const pos = e.linePos?.[0] ?? (e.pos ? lc.linePos(e.pos[0]) : { line: 1, col: 1 });
    errors.push({ code: 'yaml-syntax', line: pos.line, col: pos.col, path: '', message: e.message.split('\n')[0] });
  }
  const positions = new Map<string, NodePos>();
  const keyPositions = new Map<string, NodePos>();
  const record = (node: Node | null | undefined, segs: (string | number)[]) => {
    if (!node) return;
    const offset = node.range?.[0] ?? 0;
    const { line, col } = lc.linePos(offset);
    positions.set(pathString(segs), { line, col, offset, style: isScalar(node) ? String(node.type) : undefined });
    if (isMap(node)) {
      for (const item of node.items) {
        if (!isPair(item)) continue;
        const key = isScalar(item.key) ? String(item.key.value) : String(item.key);
        const keyNode = item.key as Node;
        if (keyNode?.range) {
          const p = lc.linePos(keyNode.range[0]);
          const at = { line: p.line, col: p.col, offset: keyNode.range[0] };
          keyPositions.set(pathString([...segs, key]), at);
          if (!item.value) positions.set(pathString([...segs, key]), at);
        }
        record(item.value as Node, [...segs, key]);
      }
    } else if (isSeq(node)) {
      node.items.forEach((it, i) => record(it as Node, [...segs, i]));
    }
  };
  record(doc.contents as Node, []);
  const value = errors.length === 0 ? doc.toJS({ maxAliasCount: 100 }) : undefined;
  return { value, positions: [...positions], keyPositions: [...keyPositions], errors };
}

export function parseYamlSource(file: string, text: string): YamlSource {
  return yamlSourceFrom(file, text, cachedYamlData(text, parseYamlData));
}

/** The source view (positions, locators) over parsed data. */
export function yamlSourceFrom(file: string, text: string, data: YamlData): YamlSource {
  const positions = new Map(data.positions);
  const keyPositions = new Map(data.keyPositions);
  const value = data.value;
  const errors: DescriptorError[] = data.errors.map((e) => ({ ...e, file }));

  const locate = (path: (string | number)[]): NodePos => {
    for (let n = path.length; n >= 0; n--) {
      const p = positions.get(pathString(path.slice(0, n)));
      if (p) return p;
    }
    return { line: 1, col: 1, offset: 0 };
  };

  const locateKey = (path: (string | number)[]): NodePos => keyPositions.get(pathString(path)) ?? locate(path);

  const locateInScalar = (path: (string | number)[], index: number) => {
    const pos = locate(path);
    if (pos.style === 'BLOCK_LITERAL' || pos.style === 'BLOCK_FOLDED') {
      // block scalar: content starts on the next line, at its indentation
      const nl = text.indexOf('\n', pos.offset);
      const bodyStart = nl + 1;
      const indent = /^ */.exec(text.slice(bodyStart))![0].length;
      const body = text.slice(bodyStart);
      let line = pos.line + 1;
      let col = indent + 1;
      let consumed = 0;
      for (const l of body.split('\n')) {
        const content = l.slice(indent);
        if (index <= consumed + content.length) {
          col = indent + 1 + (index - consumed);
          break;
        }
        consumed += content.length + 1;
        line++;
      }
      return { line, col };
    }
    const quoted = pos.style === 'QUOTE_DOUBLE' || pos.style === 'QUOTE_SINGLE' ? 1 : 0;
    return { line: pos.line, col: pos.col + quoted + index };
  };

  return { file, text, value, positions, locate, locateKey, locateInScalar, errors };
}
