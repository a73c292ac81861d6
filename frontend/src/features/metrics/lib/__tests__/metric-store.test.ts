import { describe, expect, it } from "vitest";
import type { MetricChunk } from "@/types/api";
import { cdf, displayUnit, formatValue, MetricStore, nodeCounters, quantile } from "../metric-store";

/** A chunk whose samples all come from `node` (default 1); pass `nodes` for a mixed batch. */
const chunk = (c: Partial<Omit<MetricChunk, "node">> & Pick<MetricChunk, "id" | "t" | "value">
  & { node?: number; nodes?: number[] }): MetricChunk => {
  const { node = 1, nodes, ...rest } = c;
  return { name: "lookup", kind: "observe", fields: null, ...rest, node: nodes ?? c.t.map(() => node) };
};

describe("MetricStore", () => {
  it("takes each chunk once, whether it comes live, from history or both", () => {
    const store = new MetricStore();
    const a = chunk({ id: 1, t: [10, 11], value: [0.12, 0.08] });
    const b = chunk({ id: 2, node: 2, t: [10.5], value: [0.2] });
    expect(store.add([b])).toBe(1); // live push first
    expect(store.add([a, b])).toBe(2); // then the history page holding both
    expect(store.add([a])).toBe(0);
    const s = store.series.get("lookup")!;
    expect(s.values).toEqual([0.2, 0.12, 0.08]);
    expect(s.t).toEqual([10.5, 10, 11]);
    expect(s.node).toEqual([2, 1, 1]);
    expect(store.maxId).toBe(2);
  });

  it("keeps per-sample fields, the field names and the hop histogram", () => {
    const store = new MetricStore();
    store.add([chunk({
      id: 1, t: [1, 2, 3], value: [0.1, 0.2, 0.3],
      fields: [{ hops: 3 }, null, { hops: 2, key: "a" }],
    })]);
    const s = store.series.get("lookup")!;
    expect(s.fields).toEqual([{ hops: 3 }, null, { hops: 2, key: "a" }]);
    expect([...s.fieldNames].sort()).toEqual(["hops", "key"]);
    expect([...s.hops.entries()].sort()).toEqual([[2, 1], [3, 1]]);
  });

  it("skips non-finite values and stops at the shorter of the parallel arrays", () => {
    const store = new MetricStore();
    expect(store.add([chunk({ id: 1, t: [1, 2, 3], value: [0.1, Number.NaN] })])).toBe(1);
    expect(store.series.get("lookup")!.values).toEqual([0.1]);
  });

  it("counts records, sums and the latest value per node, by record time not arrival", () => {
    const store = new MetricStore();
    store.add([
      chunk({ id: 5, node: 1, name: "sent", kind: "count", t: [20, 21], value: [2, 3] }),
      chunk({ id: 3, node: 1, name: "sent", kind: "count", t: [10], value: [7] }), // older, arrives later
      chunk({ id: 4, node: 3, name: "sent", kind: "count", t: [12], value: [1] }),
    ]);
    const s = store.series.get("sent")!;
    expect(s.kind).toBe("count");
    expect(nodeCounters(s)).toEqual([
      { node: 1, count: 3, sum: 12, last: 3, lastT: 21 },
      { node: 3, count: 1, sum: 1, last: 1, lastT: 12 },
    ]);
  });

  it("splits a chunk of several nodes (one daemon batch) into their counters", () => {
    const store = new MetricStore();
    store.add([chunk({ id: 1, nodes: [2, 1, 2], t: [1, 2, 3], value: [0.5, 0.25, 1.5] })]);
    const s = store.series.get("lookup")!;
    expect(s.node).toEqual([2, 1, 2]);
    expect(nodeCounters(s).map((r) => [r.node, r.count, r.sum, r.last])).toEqual([[1, 1, 0.25, 0.25], [2, 2, 2, 1.5]]);
  });

  it("lists every node of the job in the counters, silent ones with no records", () => {
    const store = new MetricStore();
    store.add([chunk({ id: 1, node: 2, t: [1], value: [0.5] }), chunk({ id: 2, node: 5, t: [1], value: [0.5] })]);
    const rows = nodeCounters(store.series.get("lookup")!, 3);
    expect(rows.map((r) => [r.node, r.count])).toEqual([[1, 0], [2, 1], [3, 0], [5, 1]]);
    expect(rows[0]!.last).toBeNaN();
  });

  it("names observed metrics first, then by number of records", () => {
    const store = new MetricStore();
    store.add([
      chunk({ id: 1, name: "sent", kind: "count", t: [1, 2, 3], value: [1, 1, 1] }),
      chunk({ id: 2, name: "rtt", t: [1], value: [0.1] }),
      chunk({ id: 3, name: "lookup", t: [1, 2], value: [0.1, 0.2] }),
    ]);
    expect(store.names()).toEqual(["lookup", "rtt", "sent"]);
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

  it("formats values without exponents from 1 up", () => {
    expect(formatValue(12)).toBe("12");
    expect(formatValue(1234.56)).toBe("1235");
    expect(formatValue(12.3456)).toBe("12.3");
    expect(formatValue(0.012345)).toBe("0.0123");
    expect(formatValue(Number.NaN)).toBe("–");
    expect(formatValue(null)).toBe("–");
  });
});
