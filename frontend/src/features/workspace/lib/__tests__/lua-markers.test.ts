import { describe, expect, it } from "vitest";
import { diagnosticMarkers, MAX_DIAGNOSED_CHARS } from "../lua-markers";

describe("diagnosticMarkers (the workspace editor's markers while typing)", () => {
  it("marks a syntax error as an error at its line and column, and nothing else", () => {
    expect(diagnosticMarkers("local x = \nprint(y)\nfunction f(\n")).toEqual([
      { line: 4, column: 1, message: "<name> or '...' expected near '<eof>'", source: "syntax" },
    ]);
  });

  it("marks the lint's warnings over the flagged name, with luacheck's code", () => {
    expect(diagnosticMarkers("local unused = 1\nprint(nope)\n")).toEqual([
      { line: 1, column: 7, endColumn: 12, message: "unused variable 'unused'", severity: "warning", source: "lint", code: "W211" },
      { line: 2, column: 7, endColumn: 10, message: "accessing undefined variable 'nope'", severity: "warning", source: "lint", code: "W113" },
    ]);
  });

  it("leaves a text too long to check while typing unmarked", () => {
    expect(diagnosticMarkers("print(nope)\n" + "-- filler\n".repeat(MAX_DIAGNOSED_CHARS / 10))).toEqual([]);
  });
});
