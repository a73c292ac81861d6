import { describe, expect, it } from "vitest";
import { MAX_WINDOWS, MIN_SAMPLES_PER_WINDOW, MIN_WINDOW_S, windowLength, windowStats } from "../time-windows";

describe("windowLength", () => {
  it("gives between 30 and 75 windows of a round length once the run is long enough", () => {
    for (const span of [7.5, 12.5, 30, 60, 100, 299, 300, 601, 3600, 86_400]) {
      const w = windowLength(span);
      const windows = Math.floor(span / w) + 1;
      expect(windows, `span ${span}: window ${w}`).toBeGreaterThanOrEqual(30);
      expect(windows, `span ${span}: window ${w}`).toBeLessThanOrEqual(MAX_WINDOWS);
      const mantissa = w / 10 ** Math.floor(Math.log10(w) + 1e-9);
      expect([1, 2, 5].some((m) => Math.abs(mantissa - m) < 1e-9), `window ${w}`).toBe(true);
    }
  });

  it("never goes below the minimum window", () => {
    expect(windowLength(0)).toBe(MIN_WINDOW_S);
    expect(windowLength(3)).toBe(MIN_WINDOW_S);
  });

  it("makes sparse runs' windows long enough for ten samples each on average", () => {
    expect(MIN_SAMPLES_PER_WINDOW).toBe(10);
    expect(windowLength(8, 96)).toBe(1); // 3 nodes, a sample every 0.25 s: not 0.2 s windows with gaps
    expect(windowLength(2.5, 12)).toBe(5);
    expect(windowLength(300, 1_000_000)).toBe(5); // plenty of samples: the 30-75 windows rule
    const t = Array.from({ length: 96 }, (_, i) => 100 + (i % 32) * 0.25);
    expect(windowStats(t, t.map(() => 1)).window).toBe(1);
  });

  it("picks the next step when the span is exactly MAX_WINDOWS windows", () => {
    expect(MAX_WINDOWS).toBe(75);
    expect(windowLength(75)).toBe(2); // 75 windows of 1 s would need a 76th for t = 75
    expect(windowLength(74.9)).toBe(1);
  });
});

describe("windowStats", () => {
  it("gives nearest-rank p10/p50/p90 and the rate per window, x from the first sample", () => {
    // 2.5 s run in 0.1 s windows. Window 0 holds 1..10, window 3 holds 100, window 24 holds 7.
    const t = [...Array.from({ length: 10 }, (_, i) => 1000 + i * 0.009), 1000.35, 1002.45];
    const values = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 100, 7];
    const s = windowStats(t, values, 0.1);
    expect(s.window).toBe(0.1);
    expect(s.t0).toBe(1000);
    expect(s.x).toHaveLength(25); // every window from the first to the last, empty ones too
    expect(s.x[0]).toBeCloseTo(0.05, 12);
    expect(s.x[24]).toBeCloseTo(2.45, 12);
    const at = (k: number) => [s.n[k], s.p10[k], s.p50[k], s.p90[k], s.rate[k]];
    expect(at(0)).toEqual([10, 1, 5, 9, 550]); // sum 55 / 0.1 s
    expect(at(1)).toEqual([0, null, null, null, 0]); // no samples: a gap, rate 0
    expect(at(3)).toEqual([1, 100, 100, 100, 1000]);
    expect(at(24)).toEqual([1, 7, 7, 7, 70]);
    expect(s.n.reduce((a, b) => a + b, 0)).toBe(12);
  });

  it("does not depend on the order samples arrived in", () => {
    const t = Array.from({ length: 200 }, (_, i) => 50 + i * 0.3);
    const v = t.map((x) => Math.sin(x));
    const a = windowStats(t, v);
    const order = t.map((_, i) => i).reverse();
    const b = windowStats(order.map((i) => t[i]!), order.map((i) => v[i]!));
    expect(b).toEqual(a);
    expect(a.p10.every((p, i) => p !== null && p <= a.p50[i]! && a.p50[i]! <= a.p90[i]!)).toBe(true);
  });

  it("counts x from a given origin (a scenario's start) and cuts windows at whole windows from it", () => {
    const origin = 1_790_000_000.25;
    // samples from 3.3 s to 7.9 s after the origin, in 1 s windows
    const t = [3.3, 3.9, 4.1, 7.9].map((s) => origin + s);
    const s = windowStats(t, [1, 2, 3, 4], 1, origin);
    expect(s.t0).toBe(origin);
    expect(s.x).toEqual([3.5, 4.5, 5.5, 6.5, 7.5]); // windows [3, 4), [4, 5), ... since the origin
    expect(s.n).toEqual([2, 1, 0, 0, 1]);
    // without it, x counts from the first sample
    expect(windowStats(t, [1, 2, 3, 4], 1).x).toEqual([0.5, 1.5, 2.5, 3.5, 4.5]);
  });

  it("puts samples before the origin at negative x", () => {
    const s = windowStats([99.5, 100.2, 101.7], [1, 2, 3], 1, 100);
    expect(s.x).toEqual([-0.5, 0.5, 1.5]);
    expect(s.n).toEqual([1, 1, 1]);
  });

  it("is empty without samples", () => {
    expect(windowStats([], []).x).toEqual([]);
  });
});
