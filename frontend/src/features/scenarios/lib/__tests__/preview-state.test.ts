import { describe, expect, it } from "vitest";
import type { ChurnPreview, ChurnPreviewOk } from "@/types/api";
import { errorLabel, errorMarkers, initialPreviewState, previewReducer, type PreviewEvent } from "../preview-state";

const ok = (nodes: number): ChurnPreviewOk => ({
  kind: "script", errors: [], warnings: [], nodes, duration: 10, end: null,
  population: [[1, nodes]], bin: 1, bins: [[1, nodes, 0]], network: [],
});
const bad: ChurnPreview = {
  kind: "script",
  errors: [
    { line: 2, column: 6, message: "the instant: expected a time unit (s, m, h, d) after 2" },
    { line: 3, column: 0, message: "the scenario is larger than 1 MB" },
  ],
};
const run = (...events: PreviewEvent[]) => events.reduce(previewReducer, initialPreviewState);

describe("previewReducer", () => {
  it("is pending from the edit until its answer", () => {
    const sent = run({ type: "request", id: 1 });
    expect(sent.pending).toBe(true);
    const done = previewReducer(sent, { type: "result", id: 1, preview: ok(5) });
    expect(done).toMatchObject({ pending: false, errors: [], failure: null });
    expect(done.preview?.nodes).toBe(5);
  });

  it("drops answers to texts the user has typed past, whatever order they come in", () => {
    const state = run(
      { type: "request", id: 1 },
      { type: "request", id: 2 },
      { type: "result", id: 2, preview: ok(2) },
      { type: "result", id: 1, preview: ok(1) },
      { type: "failure", id: 1, error: new Error("late") },
    );
    expect(state.preview?.nodes).toBe(2);
    expect(state.failure).toBeNull();
    // still waiting for the newest: an older answer does not end the wait
    const waiting = run({ type: "request", id: 1 }, { type: "request", id: 2 }, { type: "result", id: 1, preview: ok(1) });
    expect(waiting).toMatchObject({ pending: true, preview: null });
  });

  it("keeps the last good preview while the text has errors, and clears them when fixed", () => {
    const broken = run({ type: "request", id: 1 }, { type: "result", id: 1, preview: ok(7) },
      { type: "request", id: 2 }, { type: "result", id: 2, preview: bad });
    expect(broken.preview?.nodes).toBe(7);
    expect(broken.errors).toHaveLength(2);
    const fixed = run({ type: "request", id: 1 }, { type: "result", id: 1, preview: bad },
      { type: "request", id: 2 }, { type: "result", id: 2, preview: ok(9) });
    expect(fixed.errors).toEqual([]);
    expect(fixed.preview?.nodes).toBe(9);
  });

  it("reports a failed request without losing the preview", () => {
    const state = run({ type: "request", id: 1 }, { type: "result", id: 1, preview: ok(3) },
      { type: "request", id: 2 }, { type: "failure", id: 2, error: new Error("502") });
    expect(state.failure).toBeInstanceOf(Error);
    expect(state.preview?.nodes).toBe(3);
    expect(state.pending).toBe(false);
  });
});

describe("errors", () => {
  it("labels them as the server's save errors do", () => {
    expect(bad.errors.map(errorLabel)).toEqual([
      "line 2, column 6: the instant: expected a time unit (s, m, h, d) after 2",
      "line 3: the scenario is larger than 1 MB",
    ]);
  });

  it("becomes editor markers at line and column", () => {
    expect(errorMarkers(bad.errors)[0]).toEqual({ line: 2, column: 6, message: "the instant: expected a time unit (s, m, h, d) after 2" });
  });
});
