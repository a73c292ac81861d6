import type { EditorMarker } from "@/components/code-editor/code-editor";
import { diagnoseLua } from "@/lib/lua-lint/diagnose";

/** Longer texts are not checked while typing: parsing them would stall the page at each
 * keystroke, and such a text (over the workspace's 1 MB) cannot be saved anyway. */
export const MAX_DIAGNOSED_CHARS = 512 * 1024;

/** The editor's markers for Lua source: the syntax error (luaparse), else the lint's warnings
 * (the rules of `./splaylab check`). */
export function diagnosticMarkers(code: string): EditorMarker[] {
  if (code.length > MAX_DIAGNOSED_CHARS) return [];
  const { syntaxError, warnings } = diagnoseLua(code);
  if (syntaxError) {
    return [{ line: syntaxError.line, column: syntaxError.column, message: syntaxError.message, source: "syntax" }];
  }
  return warnings.map((w) => ({
    line: w.line, column: w.column, endColumn: w.endColumn, message: w.message,
    severity: "warning", source: "lint", code: w.code,
  }));
}
