import { CdfPlot } from "@/components/ui/cdf-plot";
import type { ReportPlot } from "@/types/grading";
import { plotCurves, plotTitle } from "../lib/plots";

/** The runs' latency CDFs, the submission's over the reference's on the same run. */
export function ReportPlots({ plots }: { plots: ReportPlot[] }) {
  if (plots.length === 0) return null;
  return (
    <section className="card report-plots" aria-label="Plots">
      <h2>Plots</h2>
      {plots.map((plot) => (
        <figure key={`${plot.run}/${plot.metric}`} data-testid="report-plot" data-metric={plot.metric}>
          <figcaption>
            {plotTitle(plot)} ({plot.samples} samples)
          </figcaption>
          <CdfPlot curves={plotCurves(plot)} xLabel="ms" logScale={false} />
        </figure>
      ))}
    </section>
  );
}
