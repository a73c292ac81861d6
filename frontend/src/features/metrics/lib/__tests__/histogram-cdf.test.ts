import { describe, expect, it } from "vitest";
import { binIndex, binValue, histogramCdf } from "../histogram-cdf";

const GAMMA = 1.02;

describe("binValue", () => {
  it("is within 1 % of every value of its bin", () => {
    for (const v of [1e-4, 0.0123, 0.05, 0.999, 1, 1.5, 42, 1234.5, 9e6]) {
      const rep = binValue(GAMMA, binIndex(GAMMA, v));
      expect(Math.abs(rep - v) / v, `v = ${v}`).toBeLessThanOrEqual(0.01);
    }
  });

  it("puts a value in the bin whose bounds hold it", () => {
    for (const v of [0.003, 0.25, 7, 300]) {
      const i = binIndex(GAMMA, v);
      expect(GAMMA ** (i - 1)).toBeLessThan(v);
      expect(GAMMA ** i).toBeGreaterThanOrEqual(v * (1 - 1e-12));
    }
  });
});

describe("histogramCdf", () => {
  it("accumulates the bins in increasing value: negatives, zero, positives", () => {
    const { x, y } = histogramCdf({
      gamma: GAMMA,
      positive: [[10, 3], [-5, 2]], // out of order on purpose: sorted by index
      negative: [[0, 1], [50, 1]], // -binValue(50) < -binValue(0)
      zero: 3,
    });
    expect(x).toEqual([-binValue(GAMMA, 50), -binValue(GAMMA, 0), 0, binValue(GAMMA, -5), binValue(GAMMA, 10)]);
    expect(y).toEqual([0.1, 0.2, 0.5, 0.7, 1]);
  });

  it("reproduces the CDF of known samples within 1 %, in display units", () => {
    const samples = [0.010, 0.012, 0.020, 0.020, 0.050, 0.100, 0.100, 0.100, 0.200, 0.500];
    const bins = new Map<number, number>();
    for (const v of samples) bins.set(binIndex(GAMMA, v), (bins.get(binIndex(GAMMA, v)) ?? 0) + 1);
    const { x, y } = histogramCdf({ gamma: GAMMA, positive: [...bins.entries()], negative: [], zero: 0 }, 1000);
    const distinct = [...new Set(samples)].map((v) => v * 1000);
    expect(x).toHaveLength(distinct.length);
    x.forEach((v, i) => expect(Math.abs(v - distinct[i]!) / distinct[i]!).toBeLessThanOrEqual(0.01));
    expect(y).toEqual([0.1, 0.2, 0.4, 0.5, 0.8, 0.9, 1]);
  });

  it("is empty for an empty histogram", () => {
    expect(histogramCdf({ gamma: GAMMA, positive: [], negative: [], zero: 0 })).toEqual({ x: [], y: [] });
  });
});
