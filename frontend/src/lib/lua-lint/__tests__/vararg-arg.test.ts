// Lua 5.0's implicit `arg` (splaylab.lua51.vararg_arg, backend/lib/lua_lint.py): a vararg
// function that never names `...` has a local `arg`; anywhere else `arg` is an undefined global.
import { describe, expect, it } from "vitest";
import { diagnoseLua } from "../diagnose";

function argWarnings(src: string): string[] {
  const { syntaxError, warnings } = diagnoseLua(src);
  expect(syntaxError).toBeNull();
  return warnings.filter((w) => w.message.includes("'arg'")).map((w) => `${w.line}:${w.column} ${w.code}`);
}

describe("implicit arg of a vararg function", () => {
  it("is a local where the function never names ...", () => {
    expect(argWarnings("local function call(n, ...)\n  return unpack(arg)\nend\nreturn call\n")).toEqual([]);
  });

  it("reaches functions nested in it, as an upvalue", () => {
    expect(argWarnings("function outer(...)\n  return function() return arg.n end\nend\n")).toEqual([]);
  });

  it("is not given to a function that names ... or takes no varargs", () => {
    expect(argWarnings("local function f(...)\n  return select('#', ...), arg\nend\nreturn f\n")).toEqual(["2:28 W113"]);
    expect(argWarnings("local function g(a)\n  return a, arg\nend\nreturn g\n")).toEqual(["2:13 W113"]);
    expect(argWarnings("print(arg)\n")).toEqual(["1:7 W113"]);
  });

  it("leaves the rest of the line as it is", () => {
    const { warnings } = diagnoseLua("local function h(...) return arg, y end return h, function(...) return arg, zz end\n");
    expect(warnings.map((w) => `${w.line}:${w.column} ${w.code} ${w.message}`)).toEqual([
      "1:35 W113 accessing undefined variable 'y'", "1:77 W113 accessing undefined variable 'zz'"]);
  });

  it("is not counted as unused or as shadowing", () => {
    const { warnings } = diagnoseLua("local arg = 1\nlocal function f(...) return 2 end\nreturn f, arg\n");
    expect(warnings).toEqual([]);
  });
});
