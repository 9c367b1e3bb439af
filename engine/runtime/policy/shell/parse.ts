// The shell parser behind command rules and the floor (issue 22 "Rules that
// understand what is asked"): tree-sitter-bash's grammar, run by
// web-tree-sitter. Chosen over the alternatives because it is the grammar
// tree-sitter itself maintains (and editors ship), with its own corpus of
// shell features; its npm package ships the compiled tree-sitter-bash.wasm,
// so nothing is built or downloaded at run time; web-tree-sitter is
// WebAssembly, so no native addon has to match the Node build. mvdan-sh is
// deprecated by its author in favour of sh-syntax (async only), and
// @ericcornelissen/bash-parser is a POSIX grammar that does not know process
// substitution or `&>`. tree-sitter recovers from errors instead of failing,
// so a tree is only read when it has no ERROR and no MISSING node.
//
// Loading is asynchronous once (the module awaits it: bash-language.mjs,
// which `up` begins before its modules load); parsing is synchronous.
import type { Node } from 'web-tree-sitter';
import { bashLanguage } from './bash-language.mjs';

const { Parser, language } = await bashLanguage();
const parser = new Parser();
parser.setLanguage(language);

/** A syntax node copied out of the parser's memory (the tree is freed at once). */
export interface ShellNode {
  type: string;
  /** false for the grammar's anonymous tokens: `&&`, `|`, `;`, `&`, `>`, quotes */
  named: boolean;
  text: string;
  children: ShellNode[];
}

/** The command line's syntax tree, or undefined when it does not parse cleanly. */
export function parseShell(command: string): ShellNode | undefined {
  const tree = parser.parse(command);
  if (!tree) return undefined;
  try {
    const root = tree.rootNode;
    if (root.hasError) return undefined;
    return copy(root);
  } finally {
    tree.delete();
  }
}

function copy(node: Node): ShellNode | undefined {
  if (node.isMissing || node.isError) return undefined;
  const children: ShellNode[] = [];
  for (const child of node.children) {
    if (!child) continue;
    const copied = copy(child);
    if (!copied) return undefined;
    children.push(copied);
  }
  return { type: node.type, named: node.isNamed, text: node.text, children };
}
