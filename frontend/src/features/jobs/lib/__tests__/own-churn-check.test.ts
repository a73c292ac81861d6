import { describe, expect, it } from "vitest";
import type { ChurnPreviewOk } from "@/types/api";
import { churnErrorLabel, initialOwnChurnCheck, ownChurnReducer, ownChurnSummary } from "../own-churn-check";

const ok = (over: Partial<ChurnPreviewOk> = {}): ChurnPreviewOk => ({
  kind: "script", errors: [], warnings: [], nodes: 12, duration: 45, end: 45, population: [[0, 12]], bin: 1,
  bins: [[0, 12, 0]], network: [], ...over,
});
const bad = { kind: "script" as const, errors: [{ line: 2, column: 6, message: "expected a time unit" }] };

describe("ownChurnSummary", () => {
  it("says the nodes the run takes and when it ends", () => {
    expect(ownChurnSummary(ok())).toBe("12 nodes, ends at 45 s");
    expect(ownChurnSummary(ok({ nodes: 1, end: 1.5 }))).toBe("1 node, ends at 1.5 s");
    expect(ownChurnSummary(ok({ nodes: 1200, end: 3600 }))).toBe("1,200 nodes, ends at 3,600 s");
  });

  it("says the Duration field decides without a stop", () => {
    expect(ownChurnSummary(ok({ end: null, duration: 20 })))
      .toBe("12 nodes, no stop: the run lasts its Duration (last event at 20 s)");
  });
});

describe("churnErrorLabel", () => {
  it("names the line, and the column when there is one", () => {
    expect(churnErrorLabel({ line: 2, column: 6, message: "expected a time unit" })).toBe("line 2, column 6: expected a time unit");
    expect(churnErrorLabel({ line: 3, column: 0, message: "too many" })).toBe("line 3: too many");
  });
});

describe("ownChurnReducer", () => {
  it("shows the latest text's errors and keeps the last valid summary", () => {
    let s = ownChurnReducer(initialOwnChurnCheck, { type: "request", id: 1 });
    expect(s.pending).toBe(true);
    s = ownChurnReducer(s, { type: "result", id: 1, preview: ok() });
    expect(s).toMatchObject({ pending: false, errors: [], preview: { nodes: 12 } });
    s = ownChurnReducer(ownChurnReducer(s, { type: "request", id: 2 }), { type: "result", id: 2, preview: bad });
    expect(s.errors).toEqual(bad.errors);
    expect(s.preview?.nodes).toBe(12);
  });

  it("drops the answer to a text the student typed past", () => {
    let s = ownChurnReducer(initialOwnChurnCheck, { type: "request", id: 1 });
    s = ownChurnReducer(s, { type: "request", id: 2 });
    s = ownChurnReducer(s, { type: "result", id: 1, preview: bad });
    expect(s.errors).toEqual([]);
    expect(s.pending).toBe(true);
  });

  it("forgets everything for a blank text, and answers sent before it", () => {
    let s = ownChurnReducer(initialOwnChurnCheck, { type: "request", id: 1 });
    s = ownChurnReducer(s, { type: "result", id: 1, preview: ok() });
    s = ownChurnReducer(s, { type: "request", id: 2 });
    s = ownChurnReducer(s, { type: "clear", id: 3 });
    expect(s).toMatchObject({ preview: null, errors: [], pending: false, latest: 3 });
    expect(ownChurnReducer(s, { type: "result", id: 2, preview: bad }).errors).toEqual([]);
  });

  it("reports a failed request without losing the last summary", () => {
    let s = ownChurnReducer(initialOwnChurnCheck, { type: "request", id: 1 });
    s = ownChurnReducer(ownChurnReducer(s, { type: "result", id: 1, preview: ok() }), { type: "request", id: 2 });
    s = ownChurnReducer(s, { type: "failure", id: 2, error: new Error("down") });
    expect(s.failure).toBeInstanceOf(Error);
    expect(s.preview?.nodes).toBe(12);
  });
});
