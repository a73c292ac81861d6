import { describe, expect, it } from "vitest";
import { highlightParts, searchPattern } from "../log-search";

const marked = (text: string, query: string) =>
  highlightParts(text, query)
    .map((part) => (part.match ? `[${part.text}]` : part.text))
    .join("");

describe("highlightParts", () => {
  it("marks every match, keeping the text's own case", () => {
    expect(marked("Lookup then lookup, LOOKUP", "lookup")).toBe("[Lookup] then [lookup], [LOOKUP]");
  });

  it("keeps the whole text when there is no search or no match", () => {
    expect(highlightParts("plain", "")).toEqual([{ text: "plain", match: false }]);
    expect(highlightParts("plain", "zzz")).toEqual([{ text: "plain", match: false }]);
  });

  it("reads regular-expression characters literally and folds accented capitals", () => {
    expect(marked("x = f(a.b) * 2; fXa.b", "(a.b)")).toBe("x = f[(a.b)] * 2; fXa.b");
    expect(marked("Élection: élu", "éL")).toBe("[Él]ection: [él]u");
  });
});

describe("searchPattern", () => {
  it("is null for an empty search and tests without keeping state between lines", () => {
    expect(searchPattern("")).toBeNull();
    const pattern = searchPattern("ab")!;
    expect([pattern.test("xab"), pattern.test("abx"), pattern.test("AB")]).toEqual([true, true, true]);
  });
});
