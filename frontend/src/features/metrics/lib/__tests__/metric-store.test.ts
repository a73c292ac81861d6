import { describe, expect, it } from "vitest";
import type { LogLine } from "@/types/api";
import { cdf, displayUnit, MetricStore, quantile } from "../metric-store";

const line = (id: number, text: string, level: LogLine["level"] = "metric"): LogLine =>
  ({ id, node: 1, seq: id, t: id, level, text }) as LogLine;

describe("MetricStore", () => {
  it("aggregates observations, counts and hop histograms once per line id", () => {
    const store = new MetricStore();
    const batch = [
      line(1, '{"name":"lookup","value":0.12,"type":"observe","fields":{"hops":3}}'),
      line(2, '{"name":"lookup","value":0.08,"type":"observe","fields":{"hops":2}}'),
      line(3, '{"name":"sent","value":5,"type":"count"}'),
      line(4, "not json"),
      line(5, "lookup key=1", "info"),
    ];
    expect(store.add(batch)).toBe(3);
    expect(store.add(batch)).toBe(0); // duplicates from history + live are ignored
    const lookup = store.series.get("lookup")!;
    expect(lookup.values).toEqual([0.12, 0.08]);
    expect([...lookup.hops.entries()].sort()).toEqual([[2, 1], [3, 1]]);
    expect(store.series.get("sent")!.count).toBe(5);
    expect(store.observedNames()).toEqual(["lookup"]);
  });
});

describe("cdf and quantile", () => {
  it("gives the fraction of samples at or below each value", () => {
    expect(cdf([3, 1, 2, 4])).toEqual({ x: [1, 2, 3, 4], y: [0.25, 0.5, 0.75, 1] });
    const sorted = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect(quantile(sorted, 0.5)).toBe(5);
    expect(quantile(sorted, 0.9)).toBe(9);
    expect(quantile([], 0.5)).toBeNull();
  });

  it("shows time-like metrics in milliseconds", () => {
    expect(displayUnit("lookup_latency", [0.1, 0.2])).toEqual({ unit: "ms", scale: 1000 });
    expect(displayUnit("lookup_ms", [120])).toEqual({ unit: "ms", scale: 1 });
    expect(displayUnit("hops", [3])).toEqual({ unit: "", scale: 1 });
  });
});
