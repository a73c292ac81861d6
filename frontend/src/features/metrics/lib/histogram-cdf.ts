import type { MetricHistogram } from "@/types/api";

/**
 * Representative value of positive bin i, which holds (gamma^(i-1), gamma^i]: the point whose
 * relative error to both ends is the same, (gamma-1)/(gamma+1) (under 1 % for gamma = 1.02).
 */
export function binValue(gamma: number, i: number): number {
  return (2 * gamma ** i) / (gamma + 1);
}

/** Index of the positive bin holding v > 0 (the inverse of the bin bounds; for tests and tools). */
export function binIndex(gamma: number, v: number): number {
  return Math.ceil(Math.log(v) / Math.log(gamma));
}

/**
 * A run's CDF from the controller's histogram: the bins in increasing value (the most negative
 * first, then zero, then positives) and the cumulative fraction of records up to each. Only
 * as exact as the bins: each x is a bin's representative value, times `scale` (display unit).
 */
export function histogramCdf(h: MetricHistogram, scale = 1): { x: number[]; y: number[] } {
  const points: [number, number][] = [];
  const negative = [...h.negative].sort((a, b) => b[0] - a[0]);
  for (const [i, n] of negative) if (n > 0) points.push([-binValue(h.gamma, i), n]);
  if (h.zero > 0) points.push([0, h.zero]);
  const positive = [...h.positive].sort((a, b) => a[0] - b[0]);
  for (const [i, n] of positive) if (n > 0) points.push([binValue(h.gamma, i), n]);
  const total = points.reduce((s, [, n]) => s + n, 0);
  const x: number[] = [];
  const y: number[] = [];
  let seen = 0;
  for (const [v, n] of points) {
    seen += n;
    x.push(v * scale);
    y.push(seen / total);
  }
  return { x, y };
}
