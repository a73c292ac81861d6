/// <reference types="node" />
// The editor's lint says what `./splaylab check` says: each fixture is linted here and by
// luacheck run exactly as backend/lib/lua_lint.py runs it (same globals, same codes), and the
// two lists must be equal (line, columns, code, message).
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { SPLAY_GLOBALS } from "@/lib/splay-api";
import { diagnoseLua } from "../diagnose";

const FIXTURES = fileURLToPath(new URL("./fixtures", import.meta.url));
// backend/lib/lua_lint.py LINT_CODES
const LINT_CODES = ["112", "113", "211", "213", "231", "411", "412", "413", "421", "422", "423", "431", "432", "433", "511"];
const LINE = /^.*?:(\d+):(\d+-\d+): \(([WE]\d+)\) (.*)$/;

function luacheck(path: string): string[] {
  const argv = [path, "--no-config", "--std", "none", "--allow-defined", "--codes", "--ranges",
    "--formatter", "plain", "--no-color", "--globals", ...[...SPLAY_GLOBALS].sort(), "--only", ...LINT_CODES];
  let out: string;
  try {
    out = execFileSync("luacheck", argv, { encoding: "utf8" });
  } catch (e) {
    // exit 1: warnings found (its output is still the answer); no luacheck at all is a failure
    const err = e as { status?: number; stdout?: string };
    if (err.status !== 1 || err.stdout === undefined) throw e;
    out = err.stdout;
  }
  return out.split("\n").flatMap((line) => {
    const m = LINE.exec(line);
    return m ? [`${m[1]}:${m[2]}: (${m[3]}) ${m[4]}`] : [];
  });
}

function editorLint(path: string): string[] {
  const { syntaxError, warnings } = diagnoseLua(readFileSync(path, "utf8"));
  expect(syntaxError).toBeNull();
  return warnings.map((w) => `${w.line}:${w.column}-${w.endColumn}: (${w.code}) ${w.message}`);
}

describe("the editor's lint matches luacheck (./splaylab check)", () => {
  const files = readdirSync(FIXTURES).filter((f) => f.endsWith(".lua")).sort();

  it("has fixtures for every code family", () => {
    const all = files.flatMap((f) => luacheck(join(FIXTURES, f))).join("\n");
    for (const code of ["W112", "W113", "W211", "W213", "W231", "W41", "W42", "W43", "W511"]) expect(all).toContain(`(${code}`);
  });

  it.each(files)("%s", (file) => {
    const path = join(FIXTURES, file);
    expect(editorLint(path)).toEqual(luacheck(path));
  });
});
