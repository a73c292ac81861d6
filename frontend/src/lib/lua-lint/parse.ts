// Lua source -> luaparse's tree, or the syntax error at its line and column (1-based).
import { parse, type Chunk } from "luaparse";

export interface LuaSyntaxError {
  line: number;
  column: number;
  message: string;
}

export type ParseResult = { ok: true; chunk: Chunk } | { ok: false; error: LuaSyntaxError };

// LuaJIT's syntax (goto, labels, hex escapes). Lua 5.1 read an unknown escape such as "\q" as
// the letter, and the runtime does too (sandbox/lib/splaylab/lua51.lua, with a warning), where
// luaparse refuses it: such a backslash is blanked (same length, positions kept) and parsed again.
const OPTIONS = { luaVersion: "LuaJIT", locations: true, comments: false, scope: false } as const;
const MAX_ESCAPE_RETRIES = 100;

interface LuaparseError {
  message: string;
  line: number;
  column: number;
  index: number;
}

function isLuaparseError(e: unknown): e is LuaparseError {
  return e instanceof SyntaxError && typeof (e as Partial<LuaparseError>).line === "number";
}

export function parseLua(code: string): ParseResult {
  let source = code;
  for (let attempt = 0; ; attempt++) {
    try {
      return { ok: true, chunk: parse(source, OPTIONS) };
    } catch (e) {
      if (!isLuaparseError(e)) throw e;
      const slash = source.lastIndexOf("\\", e.index);
      if (e.message.includes("invalid escape sequence") && slash >= 0 && attempt < MAX_ESCAPE_RETRIES) {
        source = source.slice(0, slash) + " " + source.slice(slash + 1);
        continue;
      }
      // "[3:0] 'end' expected near '<eof>'": the prefix repeats the position
      return { ok: false, error: { line: e.line, column: e.column + 1, message: e.message.replace(/^\[\d+:\d+\] /, "") } };
    }
  }
}
