// Variables and scopes of the lint, and the warnings luacheck words for them (same codes and
// texts, so the editor and `./splaylab check` say the same thing).

export interface LintWarning {
  line: number;
  /** 1-based, as luacheck counts. */
  column: number;
  /** The last column of the flagged name or statement (inclusive, luacheck's `--ranges`). */
  endColumn: number;
  code: string;
  message: string;
}

export type VariableKind = "variable" | "function" | "argument" | "loop";

export interface Position {
  line: number;
  column: number;
}

export interface Variable {
  name: string;
  kind: VariableKind;
  at: Position;
  /** The function the variable belongs to (its scope chain's function). */
  fn: FunctionScope;
  reads: number;
  /** Reads from inside a function value assigned to the variable itself (recursion). */
  selfReads: number;
  /** Assignments after the declaration. */
  writes: number;
  /** Where the function value that reads itself was assigned (luacheck's place for 211). */
  recursiveAt: Position | null;
  /** Implicit `self` of a method: may be shadowed, never reported unused. */
  implicit: boolean;
}

export interface FunctionScope {
  parent: FunctionScope | null;
}

export class BlockScope {
  readonly vars = new Map<string, Variable>();
  constructor(readonly parent: BlockScope | null, readonly fn: FunctionScope) {}

  lookup(name: string): Variable | undefined {
    for (let s: BlockScope | null = this; s; s = s.parent) {
      const v = s.vars.get(name);
      if (v) return v;
    }
    return undefined;
  }
}

const KIND_WORDS: Record<VariableKind, string> = {
  variable: "variable", function: "variable", argument: "argument", loop: "loop variable",
};
const KIND_DIGIT: Record<VariableKind, string> = { variable: "1", function: "1", argument: "2", loop: "3" };

/** 41x (same scope), 42x (an outer block of the same function), 43x (an enclosing function). */
export function shadowWarning(v: Variable, previous: Variable, sameScope: boolean): LintWarning {
  const digit = KIND_DIGIT[previous.kind];
  const what = KIND_WORDS[previous.kind];
  const at = { line: v.at.line, column: v.at.column, endColumn: v.at.column + v.name.length - 1 };
  if (sameScope) {
    const as = previous.kind === "variable" || previous.kind === "function" ? "" : ` as ${what === "argument" ? "an argument" : "a loop variable"}`;
    return { ...at, code: `W41${digit}`, message: `variable '${v.name}' was previously defined${as} on line ${previous.at.line}` };
  }
  if (previous.fn === v.fn) {
    return { ...at, code: `W42${digit}`, message: `shadowing definition of ${what} '${v.name}' on line ${previous.at.line}` };
  }
  const upvalue = previous.kind === "variable" || previous.kind === "function" ? "upvalue" : `upvalue ${what}`;
  return { ...at, code: `W43${digit}`, message: `shadowing ${upvalue} '${v.name}' on line ${previous.at.line}` };
}

/** 211 / 213 / 231 for a variable whose scope ended, or null when it was used. */
export function unusedWarning(v: Variable): LintWarning | null {
  if (v.name === "_" || v.implicit || v.kind === "argument" || v.reads > 0) return null;
  const at = nameAt(v.at, v.name);
  if (v.kind === "loop") return { ...at, code: "W213", message: `unused loop variable '${v.name}'` };
  if (v.selfReads > 0) {
    return { ...nameAt(v.recursiveAt ?? v.at, v.name), code: "W211", message: `unused recursive function '${v.name}'` };
  }
  if (v.writes > 0) return { ...at, code: "W231", message: `variable '${v.name}' is never accessed` };
  const what = v.kind === "function" ? "function" : "variable";
  return { ...at, code: "W211", message: `unused ${what} '${v.name}'` };
}

/** Where a name written at `at` ends: the warning's range. */
export function nameAt(at: Position, name: string): Position & { endColumn: number } {
  return { line: at.line, column: at.column, endColumn: at.column + name.length - 1 };
}
