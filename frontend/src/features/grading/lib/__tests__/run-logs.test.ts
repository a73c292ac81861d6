import { describe, expect, it } from "vitest";
import { logsSummary } from "../run-logs";

describe("a run's logs in the report", () => {
  it("counts the lines and errors, and says when it keeps only some", () => {
    expect(logsSummary({ total: 8, errors: 5, lines: Array(8).fill([0, 1, "print", "x"]) })).toBe("8 lines, 5 errors");
    expect(logsSummary({ total: 1, errors: 0, lines: [[0, 1, "print", "x"]] })).toBe("1 line, 0 errors");
    expect(logsSummary({ total: 5321, errors: 12, lines: Array(2000).fill([0, 1, "info", "x"]) })).toBe(
      "2,000 of 5,321 lines, errors first; 12 errors",
    );
  });
});
