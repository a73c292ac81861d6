import { describe, expect, it } from "vitest";
import { diagnoseLua } from "../diagnose";
import { parseLua } from "../parse";

describe("parseLua", () => {
  it("gives a syntax error's line, 1-based column and luaparse's words without its prefix", () => {
    const result = parseLua("local x = 1\nif x then\n  print(x)\n");
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toEqual({ line: 4, column: 1, message: "'end' expected near '<eof>'" });
  });

  it("reads LuaJIT's goto and labels", () => {
    expect(parseLua("for i = 1, 3 do\n  if i == 2 then goto continue end\n  print(i)\n  ::continue::\nend\n").ok).toBe(true);
  });

  it("reads a Lua 5.1 unknown escape as the runtime does, keeping the positions of what follows", () => {
    const { syntaxError, warnings } = diagnoseLua('local s = "a\\qb\\.c"\nprint(s, unknown_after_escape)\n');
    expect(syntaxError).toBeNull();
    expect(warnings).toEqual([{ line: 2, column: 10, endColumn: 29, code: "W113", message: "accessing undefined variable 'unknown_after_escape'" }]);
  });

  it("declares SPLAY's globals (events, misc, log, job, socket) and the sandbox's standard ones", () => {
    const { warnings } = diagnoseLua('require "splay.base"\nevents.run(function() log:print(misc.time(), job.me, socket, pairs({})) end)\n');
    expect(warnings).toEqual([]);
  });
});
