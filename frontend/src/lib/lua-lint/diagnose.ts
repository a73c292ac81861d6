// What the editor marks while typing: the syntax error (luaparse) or, when the code parses,
// the lint's warnings with the node's globals (the same as `./splaylab check`).
import { SPLAY_GLOBALS } from "@/lib/splay-api";
import { lintChunk, type LintWarning } from "./lint";
import { parseLua, type LuaSyntaxError } from "./parse";

export interface Diagnostics {
  syntaxError: LuaSyntaxError | null;
  warnings: LintWarning[];
}

export function diagnoseLua(code: string): Diagnostics {
  const parsed = parseLua(code);
  if (!parsed.ok) return { syntaxError: parsed.error, warnings: [] };
  return { syntaxError: null, warnings: lintChunk(parsed.chunk, SPLAY_GLOBALS, code.split("\n")) };
}

export type { LintWarning, LuaSyntaxError };
