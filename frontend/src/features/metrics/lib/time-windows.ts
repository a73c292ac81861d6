import { quantile } from "./metric-store";

/** At most this many windows: enough points to see a trend, yet windows long enough to hold
 * several samples each, which a p10/p90 needs (more windows made a 3-node run's band noise). */
export const MAX_WINDOWS = 75;
/** No window shorter than this: below it, the daemons' timestamps and batching are the noise. */
export const MIN_WINDOW_S = 0.1;
/** Windows hold this many samples on average at least: sparse runs get longer windows rather
 * than a band of gaps (a 3-node run sampling every 0.25 s had empty 0.2 s windows). */
export const MIN_SAMPLES_PER_WINDOW = 10;

/**
 * Window length for a run spanning `span` seconds with `samples` samples: the smallest 1-2-5
 * step (0.1, 0.2, 0.5, 1, 2, 5, 10 s, ...) giving at most MAX_WINDOWS windows and at least
 * MIN_SAMPLES_PER_WINDOW samples per window on average. Successive steps differ by at most
 * 2.5x, so a span of 7.5 s or more gets between 30 and 75 windows; a round length keeps the
 * points on readable times, and it only changes when the run has grown by a step.
 */
export function windowLength(span: number, samples = Infinity): number {
  const least = Math.max(MIN_WINDOW_S, span / MAX_WINDOWS, (MIN_SAMPLES_PER_WINDOW * span) / samples);
  for (let exp = Math.floor(Math.log10(least)) - 1; ; exp++) {
    for (const m of [1, 2, 5]) {
      const w = m * 10 ** exp;
      if (w >= least && span < MAX_WINDOWS * w) return w;
    }
  }
}

export interface WindowStats {
  /** Window length (s). */
  window: number;
  /** x is measured from this time (epoch s): the origin given, else the first sample. */
  t0: number;
  /** Middle of each window, seconds since t0, from the first window with a sample to the last. */
  x: number[];
  /** Percentiles of the window's values; null for a window without samples (a gap, not a guess). */
  p10: (number | null)[];
  p50: (number | null)[];
  p90: (number | null)[];
  /** Samples in the window. */
  n: number[];
  /** Sum of the window's values divided by its length (a `count` metric's rate per second;
   * 0 without records). */
  rate: number[];
}

/** Per-window percentiles (nearest rank) and rates of samples given as parallel t/value arrays;
 * the window is windowLength's unless given. With an `origin` (epoch s, e.g. a churn scenario's
 * start), x counts seconds since it and the windows are cut at whole windows from it, so that
 * the series lines up with other plots of the same origin; else x counts from the first sample. */
export function windowStats(t: readonly number[], values: readonly number[], window?: number, origin?: number): WindowStats {
  const out: WindowStats = { window: MIN_WINDOW_S, t0: origin ?? 0, x: [], p10: [], p50: [], p90: [], n: [], rate: [] };
  if (t.length === 0) return out;
  let first = Infinity;
  let last = -Infinity;
  for (const v of t) {
    if (v < first) first = v;
    if (v > last) last = v;
  }
  const w = window ?? windowLength(last - first, t.length);
  const t0 = origin ?? first;
  // The first window's start: the whole window (counted from t0) holding the first sample.
  const start = t0 + Math.floor((first - t0) / w) * w;
  const count = Math.floor((last - start) / w) + 1;
  const buckets: number[][] = Array.from({ length: count }, () => []);
  for (let i = 0; i < t.length; i++) {
    // clamped: rounding may put a sample a hair outside the first or last window
    const k = Math.min(count - 1, Math.max(0, Math.floor((t[i]! - start) / w)));
    buckets[k]!.push(values[i]!);
  }
  out.window = w;
  out.t0 = t0;
  buckets.forEach((b, k) => {
    b.sort((x, y) => x - y);
    out.x.push(start - t0 + (k + 0.5) * w);
    out.p10.push(quantile(b, 0.1));
    out.p50.push(quantile(b, 0.5));
    out.p90.push(quantile(b, 0.9));
    out.n.push(b.length);
    out.rate.push(b.reduce((s, v) => s + v, 0) / w);
  });
  return out;
}
