import { useMemo } from "react";
import { useMetricSummaries } from "../api/get-metric-summary";
import { histogramCdf } from "../lib/histogram-cdf";

export interface ComparedCurve {
  label: string;
  x: number[];
  y: number[];
}

/**
 * CDF curves of other runs for the metric `name`, from each run's `/metrics/` histogram (no
 * need to page every sample of a finished run), in display units (`scale`), labelled with the
 * run's label (job, code version, network model); `notes` says which runs have nothing to draw.
 */
export function useComparedRuns(jobIds: readonly number[], name: string | null, scale: number) {
  const runs = useMetricSummaries(jobIds);
  return useMemo(() => {
    const curves: ComparedCurve[] = [];
    const notes: string[] = [];
    runs.forEach((run, i) => {
      const id = jobIds[i];
      if (run.failed) notes.push(`cannot load job #${id}`);
      if (!run.summary || name === null) return;
      const s = run.summary.series.find((x) => x.name === name);
      if (!s || s.kind !== "observe" || s.count === 0) notes.push(`job #${id} has no ${name} samples`);
      else curves.push({ label: run.summary.label, ...histogramCdf(s.histogram, scale) });
    });
    return { curves, notes };
  }, [runs, jobIds, name, scale]);
}
