// W511 "unreachable code": the first statement of a block that control cannot reach, as
// luacheck finds it: after return, break or goto; after `while true` or `repeat ... until false`
// without a break; after an if whose every branch (else included) ends so; after a do block
// that ends so. A label may be a goto's target: control can reach it again. One warning per
// unreachable stretch; nested functions are checked on their own.
import type { Expression, FunctionDeclaration, Statement } from "luaparse";
import type { LintWarning } from "./scope";

function isTrue(e: Expression): boolean {
  return e.type === "BooleanLiteral" ? e.value : e.type === "NumericLiteral" || e.type === "StringLiteral";
}

function isFalse(e: Expression): boolean {
  return (e.type === "BooleanLiteral" && !e.value) || e.type === "NilLiteral";
}

/** Does the block contain a break that leaves this loop (not one of an inner loop)? */
function breaksOut(body: Statement[]): boolean {
  return body.some((s) => {
    switch (s.type) {
      case "BreakStatement":
        return true;
      case "IfStatement":
        return s.clauses.some((c) => breaksOut(c.body));
      case "DoStatement":
        return breaksOut(s.body);
      default: // loops own their breaks; functions cannot break out
        return false;
    }
  });
}

/** Can control go on after this statement? */
function completes(s: Statement): boolean {
  switch (s.type) {
    case "ReturnStatement":
    case "BreakStatement":
    case "GotoStatement":
      return false;
    case "WhileStatement":
      return !(isTrue(s.condition) && !breaksOut(s.body));
    case "RepeatStatement":
      return !(isFalse(s.condition) && !breaksOut(s.body)) && blockCompletes(s.body);
    case "IfStatement":
      return !s.clauses.some((c) => c.type === "ElseClause") || s.clauses.some((c) => blockCompletes(c.body));
    case "DoStatement":
      return blockCompletes(s.body);
    default:
      return true;
  }
}

function blockCompletes(body: Statement[]): boolean {
  let reachable = true;
  for (const s of body) {
    if (s.type === "LabelStatement") reachable = true;
    else if (reachable && !completes(s)) reachable = false;
  }
  return reachable;
}

function functionsIn(node: unknown, out: FunctionDeclaration[]): void {
  if (!node || typeof node !== "object") return;
  if (Array.isArray(node)) return node.forEach((n) => functionsIn(n, out));
  const n = node as { type?: string };
  if (n.type === "FunctionDeclaration") {
    out.push(node as FunctionDeclaration);
    return;
  }
  for (const [key, value] of Object.entries(node)) if (key !== "loc") functionsIn(value, out);
}

/** luacheck's range of an unreachable statement: from its start to its end, or to the end of
 * its first line when it spans several. */
function statementRange(s: Statement, lines: readonly string[]): Pick<LintWarning, "line" | "column" | "endColumn"> {
  const start = s.loc?.start ?? { line: 1, column: 0 };
  const end = s.loc?.end ?? start;
  const endColumn = end.line === start.line ? end.column : (lines[start.line - 1] ?? "").trimEnd().length;
  return { line: start.line, column: start.column + 1, endColumn };
}

function checkBlock(body: Statement[], lines: readonly string[], warnings: LintWarning[]): void {
  let reachable = true;
  let reported = false;
  for (const s of body) {
    if (s.type === "LabelStatement") {
      reachable = true;
      reported = false;
      continue;
    }
    if (!reachable) {
      if (!reported) warnings.push({ ...statementRange(s, lines), code: "W511", message: "unreachable code" });
      reported = true;
      continue;
    }
    for (const inner of nestedBlocks(s)) checkBlock(inner, lines, warnings);
    if (!completes(s)) reachable = false;
  }
}

function nestedBlocks(s: Statement): Statement[][] {
  switch (s.type) {
    case "IfStatement":
      return s.clauses.map((c) => c.body);
    case "WhileStatement":
    case "DoStatement":
    case "RepeatStatement":
    case "ForNumericStatement":
    case "ForGenericStatement":
      return [s.body];
    default:
      return [];
  }
}

/** W511 warnings of a chunk and of every function in it. */
export function unreachableWarnings(chunk: Statement[], lines: readonly string[]): LintWarning[] {
  const warnings: LintWarning[] = [];
  checkBlock(chunk, lines, warnings);
  const functions: FunctionDeclaration[] = [];
  functionsIn(chunk, functions);
  for (let i = 0; i < functions.length; i++) {
    const f = functions[i]!;
    checkBlock(f.body, lines, warnings);
    functionsIn(f.body, functions);
  }
  return warnings;
}
