// The report's CDFs (docs/grading.md, "The report"): quantiles in seconds -> curves in ms.
import type { CdfCurve } from "@/components/ui/cdf-plot";
import type { ReportPlot } from "@/types/grading";

/** p0..p100 quantiles (seconds) as a step curve in milliseconds: y = p / 100. */
export function quantileCurve(label: string, quantiles: number[]): CdfCurve {
  const last = quantiles.length - 1;
  return { label, x: quantiles.map((q) => q * 1000), y: quantiles.map((_, i) => (last > 0 ? i / last : 1)) };
}

/** The plot's curves: the submission's, then the reference's when the reference ran. */
export function plotCurves(plot: ReportPlot): CdfCurve[] {
  const curves = plot.submission.length ? [quantileCurve("this submission", plot.submission)] : [];
  if (plot.reference?.length) curves.push(quantileCurve("reference solution", plot.reference));
  return curves;
}

const METRIC_TITLES: Record<string, string> = {
  lookup_latency: "Lookup latency",
  broadcast_delivered: "Broadcast delivery latency",
};

export const plotTitle = (plot: ReportPlot): string =>
  `${METRIC_TITLES[plot.metric] ?? plot.metric}, run ${plot.run}`;
