// The preview's figure 4 as uPlot columns (pure; the plots only draw them).
import type { ChurnPreviewOk } from "@/types/api";

export type TimeUnit = "s" | "min";

/** From 10 minutes on, the time axis counts minutes (figure 4's 41 min would be 2,460 s). */
export const MINUTES_FROM_S = 600;

export const timeUnitFor = (seconds: number): TimeUnit => (seconds >= MINUTES_FROM_S ? "min" : "s");

/** The x axis both panels share, so that they line up. */
export interface TimeAxis {
  unit: TimeUnit;
  /** Display units per second. */
  perSecond: number;
  /** End of the axis (s): the duration, or the end of the last bin or step if later. */
  end: number;
  label: string;
}

export function timeAxis(preview: Pick<ChurnPreviewOk, "duration" | "bin" | "bins" | "population">): TimeAxis {
  const lastBin = preview.bins.at(-1);
  const lastStep = preview.population.at(-1);
  const end = Math.max(preview.duration, lastBin ? lastBin[0] + preview.bin : 0, lastStep ? lastStep[0] : 0) || 1;
  const unit = timeUnitFor(end);
  return { unit, perSecond: unit === "min" ? 1 / 60 : 1, end, label: `time (${unit})` };
}

/** The population as a stepped line (uPlot's stepped path, align 1: a value holds until the next
 * x): from 0 nodes at t = 0 to the end of the axis, one point per instant. */
export function populationSeries(steps: [number, number][], axis: TimeAxis): [number[], number[]] {
  const xs = [0];
  const ys = [0];
  for (const [t, population] of steps) {
    const x = t * axis.perSecond;
    if (x === xs[xs.length - 1]) ys[ys.length - 1] = population;
    else {
      xs.push(x);
      ys.push(population);
    }
  }
  const end = axis.end * axis.perSecond;
  if (end > xs[xs.length - 1]!) {
    xs.push(end);
    ys.push(ys[ys.length - 1]!);
  }
  return [xs, ys];
}

/** Joins (positive) and leaves (negative) per bin, a bar at each bin's centre; none (null) where
 * there were none. The last point (undefined: no bar, and uPlot leaves it out when sizing the
 * bars) carries the end of the axis, so that this panel spans the population panel's x range. */
export function binSeries(
  bins: [number, number, number][],
  width: number,
  axis: TimeAxis,
): [number[], (number | null | undefined)[], (number | null | undefined)[]] {
  const xs: number[] = [];
  const joins: (number | null | undefined)[] = [];
  const leaves: (number | null | undefined)[] = [];
  for (const [start, joined, left] of bins) {
    xs.push((start + width / 2) * axis.perSecond);
    joins.push(joined || null);
    leaves.push(left ? -left : null);
  }
  xs.push(axis.end * axis.perSecond);
  joins.push(undefined);
  leaves.push(undefined);
  return [xs, joins, leaves];
}

/** "41 min", "3 min 20 s", "1.5 s", "1 h 30 min". */
export function formatSeconds(seconds: number): string {
  let rest = Math.round(seconds * 1000);
  if (rest < 60_000) return `${+(rest / 1000).toFixed(3)} s`;
  const parts: string[] = [];
  for (const [unit, size] of [["d", 86_400_000], ["h", 3_600_000], ["min", 60_000]] as const) {
    const n = Math.floor(rest / size);
    if (n) parts.push(`${n} ${unit}`);
    rest -= n * size;
  }
  if (rest) parts.push(`${+(rest / 1000).toFixed(3)} s`);
  return parts.join(" ");
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
const KIND_LABELS = { script: "", trace: "SPLAY trace · ", fta: "FTA trace · " } as const;

export const peakPopulation = (steps: [number, number][]): number => steps.reduce((peak, [, n]) => Math.max(peak, n), 0);

/** "200 nodes · peak population 200 · duration 41 min (stop) · 0 warnings". */
export function previewSummary(preview: ChurnPreviewOk): string {
  return (
    (KIND_LABELS[preview.kind] ?? "") +
    [
      plural(preview.nodes, "node"),
      `peak population ${peakPopulation(preview.population)}`,
      `duration ${formatSeconds(preview.duration)}${preview.end !== null ? " (stop)" : ""}`,
      plural(preview.warnings.length, "warning"),
    ].join(" · ")
  );
}
