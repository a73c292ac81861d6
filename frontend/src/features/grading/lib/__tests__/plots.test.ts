import { describe, expect, it } from "vitest";
import { plotCurves, plotTitle, quantileCurve } from "../plots";

describe("report plots", () => {
  it("turns quantiles in seconds into a CDF in milliseconds", () => {
    expect(quantileCurve("x", [0.01, 0.02, 0.05])).toEqual({ label: "x", x: [10, 20, 50], y: [0, 0.5, 1] });
  });

  it("draws the reference only when it ran", () => {
    const plot = { run: "ring", metric: "lookup_latency", unit: "s" as const, samples: 3, submission: [0.1, 0.2],
      reference: null };
    expect(plotCurves(plot).map((c) => c.label)).toEqual(["this submission"]);
    expect(plotCurves({ ...plot, reference: [0.1, 0.3] }).map((c) => c.label)).toEqual([
      "this submission", "reference solution"]);
    expect(plotTitle(plot)).toBe("Lookup latency, run ring");
  });
});
