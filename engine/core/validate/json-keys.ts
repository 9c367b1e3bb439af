// JSON.parse keeps the last of two equal keys silently. On the wire that is
// exactly how an extension attribute overwriting a core attribute looks
// (AEP-0001 §5.4), so the raw text is scanned for repeated top-level keys.

/** Top-level object keys that occur more than once in `text` (assumed to be valid JSON). */
export function duplicateTopLevelKeys(text: string): string[] {
  // one linear pass; only top-level keys are decoded, nested strings are skipped
  const seen = new Set<string>();
  const dups = new Set<string>();
  let depth = 0;
  let i = 0;
  let expectKey = false;
  const n = text.length;
  while (i < n) {
    const c = text[i];
    if (c === '"') {
      const start = i;
      i++;
      while (i < n && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      i++;
      if (depth === 1 && expectKey) {
        const key = JSON.parse(text.slice(start, i)) as string;
        if (seen.has(key)) dups.add(key);
        seen.add(key);
        expectKey = false;
      }
      continue;
    }
    if (c === '{' || c === '[') {
      depth++;
      if (depth === 1 && c === '{') expectKey = true;
    } else if (c === '}' || c === ']') {
      depth--;
    } else if (c === ',' && depth === 1) {
      expectKey = true;
    }
    i++;
  }
  return [...dups];
}
