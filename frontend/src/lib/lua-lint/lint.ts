// The editor's lint on luaparse's tree: luacheck's rules as `./splaylab check` runs them
// (backend/lib/lua_lint.py): undefined globals (W112 mutating, W113 accessing; setting a global
// anywhere defines it, as SPLAY apps serve their global functions by RPC), unused locals
// (W211, W213 loop variables, W231 set but never read), shadowing (W41x/W42x/W43x) and
// unreachable code (W511). Same codes, positions and words as luacheck; a Vitest test compares
// both on fixtures.
import type { Chunk, Expression, FunctionDeclaration, Identifier, Statement } from "luaparse";
import { unreachableWarnings } from "./reachability";
import { BlockScope, nameAt, shadowWarning, unusedWarning, type FunctionScope, type LintWarning, type Position, type Variable, type VariableKind } from "./scope";

export type { LintWarning } from "./scope";

interface GlobalUse {
  name: string;
  at: Position;
  mutation: boolean;
}

function pos(node: { loc?: { start: { line: number; column: number } } | undefined }): Position {
  return { line: node.loc?.start.line ?? 1, column: (node.loc?.start.column ?? 0) + 1 };
}

class Linter {
  readonly warnings: LintWarning[] = [];
  private readonly definedGlobals = new Set<string>();
  private readonly globalUses: GlobalUse[] = [];
  /** Function values being walked, with the variable they are assigned to (for recursion). */
  private readonly valueOwners: Variable[] = [];

  constructor(private readonly knownGlobals: ReadonlySet<string>, private readonly lines: readonly string[]) {}

  run(chunk: Chunk): LintWarning[] {
    const fn: FunctionScope = { parent: null };
    this.block(chunk.body, new BlockScope(null, fn));
    for (const use of this.globalUses) {
      if (this.knownGlobals.has(use.name) || this.definedGlobals.has(use.name)) continue;
      const at = nameAt(use.at, use.name);
      this.warnings.push(use.mutation
        ? { ...at, code: "W112", message: `mutating non-standard global variable '${use.name}'` }
        : { ...at, code: "W113", message: `accessing undefined variable '${use.name}'` });
    }
    this.warnings.push(...unreachableWarnings(chunk.body, this.lines));
    return this.warnings.sort((a, b) => a.line - b.line || a.column - b.column || a.code.localeCompare(b.code));
  }

  private declare(scope: BlockScope, id: Identifier, kind: VariableKind, implicit = false, at = pos(id)): Variable {
    const v: Variable = { name: id.name, kind, at, fn: scope.fn, reads: 0, selfReads: 0, writes: 0, recursiveAt: null, implicit };
    const previous = scope.lookup(id.name);
    if (previous && id.name !== "_" && !implicit) {
      this.warnings.push(shadowWarning(v, previous, scope.vars.get(id.name) === previous));
    }
    // a same-scope redefinition ends the previous variable's life here
    const same = scope.vars.get(id.name);
    if (same) this.close(same);
    scope.vars.set(id.name, v);
    return v;
  }

  private close(v: Variable): void {
    const w = unusedWarning(v);
    if (w) this.warnings.push(w);
  }

  private block(body: Statement[], scope: BlockScope, onClose?: (scope: BlockScope) => void): void {
    for (const s of body) this.statement(s, scope);
    onClose?.(scope);
    for (const v of scope.vars.values()) this.close(v);
  }

  private statement(s: Statement, scope: BlockScope): void {
    switch (s.type) {
      case "LocalStatement": {
        s.init.forEach((e) => this.expression(e, scope));
        s.variables.forEach((id, i) => {
          const init = s.init[i];
          this.declare(scope, id, init?.type === "FunctionDeclaration" ? "function" : "variable");
        });
        return;
      }
      case "AssignmentStatement": {
        s.init.forEach((e, i) => {
          const target = s.variables[i];
          const owner = target?.type === "Identifier" ? scope.lookup(target.name) : undefined;
          this.expression(e, scope, owner && e.type === "FunctionDeclaration" ? { owner, at: pos(target!) } : undefined);
        });
        s.variables.forEach((target) => this.assignTo(target, scope));
        return;
      }
      case "CallStatement":
        return this.expression(s.expression, scope);
      case "FunctionDeclaration": {
        if (s.isLocal && s.identifier?.type === "Identifier") {
          const v = this.declare(scope, s.identifier, "function");
          return this.functionBody(s, scope, { owner: v, at: v.at });
        }
        if (s.identifier) this.assignTo(s.identifier, scope);
        const owner = s.identifier?.type === "Identifier" ? scope.lookup(s.identifier.name) : undefined;
        return this.functionBody(s, scope, owner ? { owner, at: pos(s.identifier!) } : undefined);
      }
      case "IfStatement":
        for (const clause of s.clauses) {
          if (clause.type !== "ElseClause") this.expression(clause.condition, scope);
          this.block(clause.body, new BlockScope(scope, scope.fn));
        }
        return;
      case "WhileStatement":
        this.expression(s.condition, scope);
        return this.block(s.body, new BlockScope(scope, scope.fn));
      case "DoStatement":
        return this.block(s.body, new BlockScope(scope, scope.fn));
      case "RepeatStatement": // `until` sees the body's locals
        return this.block(s.body, new BlockScope(scope, scope.fn), (inner) => this.expression(s.condition, inner));
      case "ForNumericStatement": {
        [s.start, s.end, s.step].forEach((e) => e && this.expression(e, scope));
        const inner = new BlockScope(scope, scope.fn);
        this.declare(inner, s.variable, "loop");
        return this.block(s.body, inner);
      }
      case "ForGenericStatement": {
        s.iterators.forEach((e) => this.expression(e, scope));
        const inner = new BlockScope(scope, scope.fn);
        s.variables.forEach((id) => this.declare(inner, id, "loop"));
        return this.block(s.body, inner);
      }
      case "ReturnStatement":
        return s.arguments.forEach((e) => this.expression(e, scope));
      default: // break, goto, labels
        return;
    }
  }

  /** `x = ...` defines a global or writes a local; `x.y = ...` reads x (mutates a global x). */
  private assignTo(target: Expression, scope: BlockScope): void {
    if (target.type === "Identifier") {
      const v = scope.lookup(target.name);
      if (v) v.writes++;
      else this.definedGlobals.add(target.name);
      return;
    }
    if (target.type === "MemberExpression" || target.type === "IndexExpression") {
      if (target.type === "IndexExpression") this.expression(target.index, scope);
      let base: Expression = target.base;
      while (base.type === "MemberExpression" || base.type === "IndexExpression") {
        if (base.type === "IndexExpression") this.expression(base.index, scope);
        base = base.base;
      }
      if (base.type === "Identifier" && !scope.lookup(base.name)) {
        this.globalUses.push({ name: base.name, at: pos(base), mutation: true });
      } else {
        this.expression(base, scope);
      }
    }
  }

  private read(id: Identifier, scope: BlockScope): void {
    const v = scope.lookup(id.name);
    if (!v) {
      this.globalUses.push({ name: id.name, at: pos(id), mutation: false });
    } else if (this.valueOwners.includes(v)) {
      v.selfReads++;
    } else {
      v.reads++;
    }
  }

  private expression(e: Expression, scope: BlockScope, value?: { owner: Variable; at: Position }): void {
    switch (e.type) {
      case "Identifier":
        return this.read(e, scope);
      case "FunctionDeclaration":
        return this.functionBody(e, scope, value);
      case "TableConstructorExpression":
        for (const f of e.fields) {
          if (f.type === "TableKey") this.expression(f.key, scope);
          this.expression(f.value, scope);
        }
        return;
      case "BinaryExpression":
      case "LogicalExpression":
        this.expression(e.left, scope);
        return this.expression(e.right, scope);
      case "UnaryExpression":
        return this.expression(e.argument, scope);
      case "MemberExpression":
        return this.expression(e.base, scope);
      case "IndexExpression":
        this.expression(e.base, scope);
        return this.expression(e.index, scope);
      case "CallExpression":
        this.expression(e.base, scope);
        return e.arguments.forEach((a) => this.expression(a, scope));
      case "TableCallExpression":
        this.expression(e.base, scope);
        return this.expression(e.arguments, scope);
      case "StringCallExpression":
        this.expression(e.base, scope);
        return this.expression(e.argument, scope);
      default: // literals, ...
        return;
    }
  }

  private functionBody(f: FunctionDeclaration, outer: BlockScope, value?: { owner: Variable; at: Position }): void {
    const fn: FunctionScope = { parent: outer.fn };
    const inner = new BlockScope(outer, fn);
    if (f.identifier?.type === "MemberExpression" && f.identifier.indexer === ":") {
      this.declare(inner, { type: "Identifier", name: "self" }, "argument", true, pos(f));
    }
    for (const p of f.parameters) if (p.type === "Identifier") this.declare(inner, p, "argument");
    // Lua 5.1 as SPLAY's was built (LUA_COMPAT_VARARG), and the runtime (splaylab.lua51): a
    // vararg function that never names `...` has a local `arg`, its extra arguments
    if (f.parameters.some((p) => p.type === "VarargLiteral") && !namesVararg(f.body)) {
      this.declare(inner, { type: "Identifier", name: "arg" } as Identifier, "variable", true, pos(f));
    }
    if (value) this.valueOwners.push(value.owner);
    const before = value?.owner.selfReads ?? 0;
    this.block(f.body, inner);
    if (value) {
      this.valueOwners.pop();
      if (value.owner.selfReads > before) value.owner.recursiveAt = value.at;
    }
  }
}

/** Whether `...` appears in a function's own body (not in a function nested in it). */
function namesVararg(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(namesVararg);
  if (node === null || typeof node !== "object") return false;
  const type = (node as { type?: string }).type;
  if (type === "VarargLiteral") return true;
  if (type === "FunctionDeclaration") return false;
  return Object.entries(node).some(([key, child]) => key !== "loc" && key !== "range" && namesVararg(child));
}

/** The lint's warnings, sorted by line and column, for a parsed chunk and its source's lines
 * (where an unreachable statement's first line ends). */
export function lintChunk(chunk: Chunk, knownGlobals: ReadonlySet<string>, lines: readonly string[]): LintWarning[] {
  return new Linter(knownGlobals, lines).run(chunk);
}
