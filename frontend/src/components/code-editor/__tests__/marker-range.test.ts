import { describe, expect, it } from "vitest";
import { markerRange } from "../marker-range";

// "at 2 leave" has 10 characters: Monaco's max column is 11.
const lines = ["at 1s join 2", "at 2 leave", ""];
const maxColumn = (line: number) => (lines[line - 1]?.length ?? 0) + 1;

describe("markerRange", () => {
  it("marks the whole line without a column (the workspace editor's markers)", () => {
    expect(markerRange({ line: 2 }, 3, maxColumn)).toEqual({ startLineNumber: 2, startColumn: 1, endLineNumber: 2, endColumn: 11 });
    expect(markerRange({ line: 2, column: 0 }, 3, maxColumn).startColumn).toBe(1);
  });

  it("starts at the column and runs to the end of the line", () => {
    expect(markerRange({ line: 2, column: 6 }, 3, maxColumn)).toEqual({ startLineNumber: 2, startColumn: 6, endLineNumber: 2, endColumn: 11 });
  });

  it("ends after its end column (inclusive), within the line", () => {
    expect(markerRange({ line: 1, column: 4, endColumn: 5 }, 3, maxColumn)).toEqual({ startLineNumber: 1, startColumn: 4, endLineNumber: 1, endColumn: 6 });
    expect(markerRange({ line: 2, column: 6, endColumn: 40 }, 3, maxColumn).endColumn).toBe(11);
  });

  it("keeps at least the last character when the column is at or past the end", () => {
    expect(markerRange({ line: 2, column: 11 }, 3, maxColumn).startColumn).toBe(10);
    expect(markerRange({ line: 2, column: 40 }, 3, maxColumn).startColumn).toBe(10);
  });

  it("clamps the line to the text", () => {
    expect(markerRange({ line: 9, column: 3 }, 3, maxColumn)).toEqual({ startLineNumber: 3, startColumn: 1, endLineNumber: 3, endColumn: 1 });
    expect(markerRange({ line: 0 }, 3, maxColumn).startLineNumber).toBe(1);
  });
});
