import { useMemo, useRef, useState } from "react";
import type uPlot from "uplot";
import { download, downloadText } from "@/lib/download";
import { useComparedRuns } from "../hooks/use-compared-runs";
import type { MetricHistoryState } from "../hooks/use-metric-stream";
import { parseJobIds } from "../lib/compare-ids";
import { seriesCsv } from "../lib/export";
import { cdf, displayUnit, formatValue, nodeCounters, quantile, type MetricStore } from "../lib/metric-store";
import { windowStats } from "../lib/time-windows";
import { CdfPlot } from "@/components/ui/cdf-plot";
import { HopHistogram } from "./hop-histogram";
import { MetricsToolbar } from "./metrics-toolbar";
import { NodeCounters } from "./node-counters";
import { TimeseriesPlot } from "./timeseries-plot";

interface MetricsPanelProps {
  store: MetricStore;
  version: number;
  history: MetricHistoryState;
  jobId: number;
  /** The job's node count: the counters table lists every node, also silent ones. */
  nodeCount: number;
  /** Names this run in the legend (job, code version, network model). */
  runLabel: string;
  /** The time series counts x from here (epoch s) instead of the first sample, e.g. the job's
   * churn scenario start, so that it lines up with the population plot; `label` names it. */
  timeOrigin?: { t: number; label: string } | null;
  /** Other runs of the user's, offered in the compare picker. */
  runChoices?: { id: number; label: string }[];
}

const withUnit = (v: number | null, unit: string) => `${formatValue(v)}${unit && v !== null ? ` ${unit}` : ""}`;

function EmptyPanel({ history }: { history: MetricHistoryState }) {
  return (
    <section className="metrics-panel card" data-testid="metrics-panel" aria-label="Metrics">
      <h2>Metrics</h2>
      <p className={history === "error" ? "form-error" : "muted"}>
        {history === "loading" ? "Loading metrics…" : history === "error" ? "Cannot load the metric history."
          : <>No observation yet: <code>metrics.observe(name, value)</code> in the app draws its CDF here.</>}
      </p>
    </section>
  );
}

/** The job's metrics: per metric a live CDF (other runs overlaid), its time series with a
 * p10–p90 band, per-node counters, the hop histogram when records carry `hops`, exports. */
export function MetricsPanel({ store, version, history, jobId, nodeCount, runLabel, timeOrigin, runChoices }: MetricsPanelProps) {
  const names = useMemo(() => store.names(), [store, version]);
  const [chosen, setChosen] = useState<string | null>(null);
  const [logScale, setLogScale] = useState(false);
  const [compareText, setCompareText] = useState("");
  const compareIds = useMemo(() => parseJobIds(compareText, jobId), [compareText, jobId]);
  const cdfPlot = useRef<uPlot | null>(null);
  const seriesPlot = useRef<uPlot | null>(null);
  const name = chosen && names.includes(chosen) ? chosen : names[0] ?? null;
  const series = name ? store.series.get(name) : undefined;

  const view = useMemo(() => {
    if (!series) return null;
    const { unit, scale } = series.kind === "count" ? { unit: "", scale: 1 } : displayUnit(series.name, series.values);
    const own = cdf(series.values.map((v) => v * scale));
    const total = series.values.reduce((s, v) => s + v, 0);
    const summary = series.kind === "count" ? `total ${formatValue(total)}`
      : `p50 ${withUnit(quantile(own.x, 0.5), unit)} · p90 ${withUnit(quantile(own.x, 0.9), unit)}`;
    const windows = windowStats(series.t, series.values, undefined, timeOrigin?.t);
    return { unit, scale, own, summary, windows, nodes: nodeCounters(series, nodeCount) };
  }, [series, version, nodeCount, timeOrigin?.t]);
  const compared = useComparedRuns(compareIds, series?.kind === "observe" ? series.name : null, view?.scale ?? 1);
  const curves = useMemo(() => (view ? [{ label: runLabel, ...view.own }, ...compared.curves] : []), [view, runLabel, compared.curves]);

  if (!series || !view) return <EmptyPanel history={history} />;
  const axis = `${series.name}${view.unit ? ` (${view.unit})` : ""}`;
  const png = (plot: uPlot | null, what: string) =>
    plot && download(`${series.name}-${what}.png`, plot.ctx.canvas.toDataURL("image/png"));

  return (
    <section className="metrics-panel card" data-testid="metrics-panel" aria-label="Metrics">
      <MetricsToolbar names={names} name={series.name} kind={series.kind} onName={setChosen}
        logScale={logScale} onLogScale={setLogScale} n={series.values.length} summary={view.summary}
        compareText={compareText} onCompareText={setCompareText} runChoices={runChoices}
        onCsv={() => downloadText(`${series.name}.csv`, seriesCsv(series), "text/csv")}
        onPngCdf={() => png(cdfPlot.current, "cdf")} onPngSeries={() => png(seriesPlot.current, "timeseries")} />
      {series.kind === "observe" && compared.notes.length > 0 && <p className="metrics-notes form-error">{compared.notes.join(" · ")}</p>}
      <div className="metrics-grid">
        {series.kind === "observe" && (
          <CdfPlot curves={curves} xLabel={axis} logScale={logScale} onPlot={(p) => { cdfPlot.current = p; }} />
        )}
        <TimeseriesPlot stats={view.windows} kind={series.kind} yLabel={axis} scale={view.scale}
          originLabel={timeOrigin?.label} onPlot={(p) => { seriesPlot.current = p; }} />
        <NodeCounters rows={view.nodes} kind={series.kind} unit={view.unit} scale={view.scale} />
        {series.hops.size > 0 && <HopHistogram hops={series.hops} />}
      </div>
    </section>
  );
}
