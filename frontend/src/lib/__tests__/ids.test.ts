import { describe, expect, it } from "vitest";
import { positiveId } from "../ids";

describe("positiveId", () => {
  it("reads positive integers only", () => {
    expect(positiveId("12")).toBe(12);
    for (const text of ["0", "-3", "1.5", "abc", "", undefined, null]) expect(positiveId(text)).toBeUndefined();
  });
});
