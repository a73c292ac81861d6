// What the editor offers from the SPLAY API description (splay-api.ts), without Monaco: the
// completion items at a cursor, the hover text of a name and the signature of the call being
// typed. components/code-editor/splay-lua.ts hands these to Monaco.
import { type ApiFunction, type ApiModule, publicFields, publicFunctions, signature, SPLAY_API } from "./splay-api";

export interface SplayCompletion {
  label: string;
  kind: "function" | "field" | "module";
  /** The signature or the field's type. */
  detail: string;
  /** Markdown: the line of doc and the example. */
  documentation: string;
  insertText: string;
}

export interface SplayHover {
  /** The name hovered, e.g. "events.sleep", and where it starts and ends on its line (1-based, end exclusive). */
  name: string;
  startColumn: number;
  endColumn: number;
  contents: string[];
}

export interface SplaySignature {
  label: string;
  documentation: string;
  /** Each parameter's place in `label` (start, end), as Monaco's parameter hints take it. */
  params: { label: [number, number]; documentation: string }[];
  activeParameter: number;
}

const IDENT = "[A-Za-z_][A-Za-z0-9_]*";
const REQUIRE_RE = new RegExp(`local\\s+(${IDENT})\\s*=\\s*require\\s*\\(?\\s*["']([\\w.]+)["']`, "g");

const byRequire = new Map(SPLAY_API.modules.flatMap((m) => (m.require ? [[m.require, m] as const] : [])));

/** Which module each name of the code stands for: the modules' globals (events, log, misc,
 * job, socket), their own names (rpc for splay.rpc, as SPLAY's examples write them), and
 * `local x = require "splay.y"` in the code. */
export function moduleAliases(code: string): Map<string, ApiModule> {
  const aliases = new Map<string, ApiModule>();
  for (const m of SPLAY_API.modules) aliases.set(m.name, m);
  for (const m of SPLAY_API.modules) if (m.global) aliases.set(m.global, m);
  for (const match of code.matchAll(REQUIRE_RE)) {
    const m = byRequire.get(match[2]!);
    if (m) aliases.set(match[1]!, m);
  }
  return aliases;
}

const code = (text: string) => "```lua\n" + text + "\n```";

function functionDoc(f: ApiFunction): string {
  const returns = f.returns ? `\n\nReturns: ${f.returns}` : "";
  return `${f.doc}${returns}` + (f.example ? `\n\n${code(f.example)}` : "");
}

function memberItems(m: ApiModule): SplayCompletion[] {
  const functions = publicFunctions(m).map((f): SplayCompletion => ({
    label: f.name, kind: "function", detail: signature(m, f), documentation: functionDoc(f), insertText: f.name,
  }));
  const fields = publicFields(m).map((f): SplayCompletion => ({
    label: f.name, kind: "field", detail: `${m.name}.${f.name}: ${f.type}`, documentation: f.doc, insertText: f.name,
  }));
  return [...functions, ...fields];
}

function moduleItems(): SplayCompletion[] {
  return SPLAY_API.modules.flatMap((m) => (m.require ? [{
    label: m.require, kind: "module" as const, detail: `require "${m.require}"`,
    documentation: m.doc + (m.example ? `\n\n${code(m.example)}` : ""), insertText: m.require,
  }] : []));
}

/** The items for the text before the cursor on its line: a module's members after `events.`
 * or `log:` (any alias), module names inside `require "` — else nothing (Monaco's own words). */
export function completionsAt(beforeCursor: string, aliases: Map<string, ApiModule>): SplayCompletion[] {
  if (/require\s*\(?\s*["'][\w.]*$/.test(beforeCursor)) return moduleItems();
  const member = new RegExp(`(?:^|[^\\w.:])(${IDENT})[.:](\\w*)$`).exec(beforeCursor);
  const m = member ? aliases.get(member[1]!) : undefined;
  return m ? memberItems(m) : [];
}

/** The SPLAY name under `column` (1-based) of `line`, e.g. `events.sleep` or `"splay.rpc"`. */
export function hoverAt(line: string, column: number, aliases: Map<string, ApiModule>): SplayHover | null {
  const at = column - 1;
  for (const match of line.matchAll(new RegExp(`(${IDENT})([.:])(${IDENT})`, "g"))) {
    const start = match.index;
    const end = start + match[0].length;
    if (at < start || at >= end || (start > 0 && /[\w.]/.test(line[start - 1]!))) continue;
    const m = aliases.get(match[1]!);
    if (!m) continue;
    const f = publicFunctions(m).find((x) => x.name === match[3]);
    const field = publicFields(m).find((x) => x.name === match[3]);
    const name = `${m.name}.${match[3]}`;
    if (f) return { name, startColumn: start + 1, endColumn: end + 1, contents: [code(signature(m, f)), functionDoc(f)] };
    if (field) return { name, startColumn: start + 1, endColumn: end + 1, contents: [code(`${name}: ${field.type}`), field.doc] };
  }
  for (const match of line.matchAll(/["'](splay\.\w+)["']/g)) {
    const m = byRequire.get(match[1]!);
    const start = match.index;
    const end = start + match[0].length;
    if (m && at >= start && at < end) {
      return { name: m.require!, startColumn: start + 1, endColumn: end + 1, contents: [code(`require "${m.require}"`), m.doc] };
    }
  }
  return null;
}

/** The call being typed at the end of `beforeCursor` (the open parenthesis not yet closed) and
 * which of its parameters the cursor is in, when it is a SPLAY function. */
export function signatureAt(beforeCursor: string, aliases: Map<string, ApiModule>): SplaySignature | null {
  let depth = 0;
  let commas = 0;
  for (let i = beforeCursor.length - 1; i >= 0; i--) {
    const c = beforeCursor[i]!;
    if (c === ")" || c === "}" || c === "]") depth++;
    else if ((c === "(" || c === "{" || c === "[") && depth > 0) depth--;
    else if (c === "," && depth === 0) commas++;
    else if (c === "(" && depth === 0) {
      const callee = new RegExp(`(${IDENT})[.:](${IDENT})\\s*$`).exec(beforeCursor.slice(0, i));
      const m = callee ? aliases.get(callee[1]!) : undefined;
      const f = m && publicFunctions(m).find((x) => x.name === callee![2]);
      if (!m || !f) return null;
      const label = signature(m, f);
      let from = label.indexOf("(");
      const params = f.params.map((p) => {
        const start = label.indexOf(p.name, from);
        from = start + p.name.length;
        return { label: [start, from] as [number, number], documentation: `${p.type}${p.optional ? " (optional)" : ""}` };
      });
      return {
        label,
        documentation: f.doc,
        params,
        activeParameter: Math.min(commas, Math.max(0, f.params.length - 1)),
      };
    } else if (c === "{" && depth === 0) {
      return null; // inside a table constructor, not an argument list
    }
  }
  return null;
}
