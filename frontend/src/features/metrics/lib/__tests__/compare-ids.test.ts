import { describe, expect, it } from "vitest";
import { MAX_COMPARED, parseJobIds } from "../compare-ids";

describe("parseJobIds", () => {
  it("reads comma or space separated ids, in order, once, without the own job", () => {
    expect(parseJobIds("12, 15 #17,12,,9", 9)).toEqual([12, 15, 17]);
  });

  it("ignores what is not a job id", () => {
    expect(parseJobIds("1", undefined)).toEqual([1]);
    expect(parseJobIds("abc, 1.5, -3, 0, 7x, 4")).toEqual([4]);
    expect(parseJobIds("")).toEqual([]);
  });

  it("keeps at most MAX_COMPARED runs", () => {
    expect(parseJobIds("1 2 3 4 5 6 7 8 9")).toHaveLength(MAX_COMPARED);
  });
});
