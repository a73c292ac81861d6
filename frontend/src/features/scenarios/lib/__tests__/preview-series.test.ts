import { describe, expect, it } from "vitest";
import type { ChurnPreviewOk } from "@/types/api";
import { binSeries, formatSeconds, peakPopulation, populationSeries, previewSummary, timeAxis, timeUnitFor } from "../preview-series";

// The backend's answer for "at 30s join 100 / from 1m to 2m leave 50% churn 20% / at 90s partition 50% / at 3m stop" (shortened).
const preview: ChurnPreviewOk = {
  kind: "script", errors: [], warnings: [], nodes: 115, duration: 180, end: 180,
  population: [[30, 100], [60, 99], [120, 50]],
  bin: 5, bins: [[0, 0, 0], [5, 0, 0], [30, 100, 0], [60, 1, 2]],
  network: [{ t: 90, text: "at 90s partition 50% 50%" }],
};

describe("time axis", () => {
  it("counts seconds below 10 minutes, minutes from there", () => {
    expect(timeUnitFor(599)).toBe("s");
    expect(timeUnitFor(600)).toBe("min");
    expect(timeAxis(preview)).toEqual({ unit: "s", perSecond: 1, end: 180, label: "time (s)" });
    const figure4 = timeAxis({ ...preview, duration: 2460, bin: 60, bins: [[2400, 0, 100]] });
    expect(figure4.unit).toBe("min");
    expect(figure4.label).toBe("time (min)");
    expect(2460 * figure4.perSecond).toBe(41);
  });

  it("reaches the last bin's end when it passes the duration, and is never empty", () => {
    expect(timeAxis({ ...preview, duration: 187, bins: [[185, 1, 0]] }).end).toBe(190);
    expect(timeAxis({ duration: 0, bin: 1, bins: [], population: [] }).end).toBe(1);
  });
});

describe("populationSeries", () => {
  it("steps from 0 nodes at t = 0 to the end of the axis", () => {
    expect(populationSeries(preview.population, timeAxis(preview))).toEqual([
      [0, 30, 60, 120, 180],
      [0, 100, 99, 50, 50],
    ]);
  });

  it("keeps one point per instant (a join at 0 replaces the start) and scales to minutes", () => {
    const axis = timeAxis({ duration: 1200, bin: 30, bins: [], population: [] });
    expect(populationSeries([[0, 10], [600, 4]], axis)).toEqual([[0, 10, 20], [10, 4, 4]]);
  });

  it("does not add an end point when the last step is the end", () => {
    const axis = timeAxis({ duration: 60, bin: 1, bins: [], population: [[60, 3]] });
    expect(populationSeries([[60, 3]], axis)).toEqual([[0, 60], [0, 3]]);
  });
});

describe("binSeries", () => {
  it("puts joins up and leaves down at bin centres, nothing in empty bins, the axis end last", () => {
    expect(binSeries(preview.bins, preview.bin, timeAxis(preview))).toEqual([
      [2.5, 7.5, 32.5, 62.5, 180],
      [null, null, 100, 1, undefined],
      [null, null, null, -2, undefined],
    ]);
  });

  it("uses the axis unit", () => {
    const axis = timeAxis({ duration: 2460, bin: 60, bins: [], population: [] });
    expect(binSeries([[0, 6, 0], [60, 0, 3]], 60, axis)).toEqual([[0.5, 1.5, 41], [6, null, undefined], [null, -3, undefined]]);
  });
});

describe("summary", () => {
  it("formats durations the way people say them", () => {
    expect(formatSeconds(0)).toBe("0 s");
    expect(formatSeconds(1.5)).toBe("1.5 s");
    expect(formatSeconds(200)).toBe("3 min 20 s");
    expect(formatSeconds(2460)).toBe("41 min");
    expect(formatSeconds(5400)).toBe("1 h 30 min");
    expect(formatSeconds(86_400 + 0.25)).toBe("1 d 0.25 s");
  });

  it("says nodes, peak population, duration and warnings", () => {
    expect(peakPopulation(preview.population)).toBe(100);
    expect(previewSummary(preview)).toBe("115 nodes · peak population 100 · duration 3 min (stop) · 0 warnings");
    expect(previewSummary({ ...preview, kind: "trace", nodes: 1, end: null, population: [[0, 1]], duration: 10,
      warnings: [{ line: 3, message: "2 leaves skipped: nobody was up" }] }))
      .toBe("SPLAY trace · 1 node · peak population 1 · duration 10 s · 1 warning");
  });
});
