import { useMemo, useRef, useState } from "react";
import type uPlot from "uplot";
import { useRunMetrics } from "../api/get-run-metrics";
import { cdf, displayUnit, quantile, type MetricStore } from "../lib/metric-store";
import { CdfPlot, type CdfCurve } from "./cdf-plot";
import { HopHistogram } from "./hop-histogram";

interface MetricsPanelProps {
  store: MetricStore;
  version: number;
  /** Names this run in the legend (code version, network model). */
  runLabel: string;
}

const fmt = (v: number | null, unit: string) => (v === null ? "–" : `${v.toPrecision(3)}${unit ? ` ${unit}` : ""}`);

function download(name: string, href: string) {
  const a = document.createElement("a");
  a.href = href;
  a.download = name;
  a.click();
}

/** The job's observed metrics: a live CDF per metric (log scale on demand), its percentiles,
 * the hop-count histogram when lookups report `hops`, and CSV / PNG export. */
export function MetricsPanel({ store, version, runLabel }: MetricsPanelProps) {
  const names = useMemo(() => store.observedNames(), [store, version]);
  const [chosen, setChosen] = useState<string | null>(null);
  const [logScale, setLogScale] = useState(false);
  const [compareText, setCompareText] = useState("");
  const compareId = /^\d+$/.test(compareText.trim()) ? Number(compareText.trim()) : null;
  const compare = useRunMetrics(compareId);
  const plot = useRef<uPlot | null>(null);
  const name = chosen && names.includes(chosen) ? chosen : names[0] ?? null;
  const series = name ? store.series.get(name) : undefined;

  const view = useMemo(() => {
    if (!series) return null;
    const { unit, scale } = displayUnit(series.name, series.values);
    const { x, y } = cdf(series.values.map((v) => v * scale));
    const curves: CdfCurve[] = [{ label: runLabel, x, y }];
    const other = compare.data?.store.series.get(series.name);
    if (compare.data && other && other.values.length > 0) {
      curves.push({ label: compare.data.label, ...cdf(other.values.map((v) => v * scale)) });
    }
    return { unit, curves, p50: quantile(x, 0.5), p90: quantile(x, 0.9), n: x.length };
  }, [series, version, runLabel, compare.data]);

  if (!series || !view) {
    return (
      <section className="metrics-panel card" data-testid="metrics-panel" aria-label="Metrics">
        <h2>Metrics</h2>
        <p className="muted">No observation yet: <code>metrics.observe(name, value)</code> in the app draws its CDF here.</p>
      </section>
    );
  }
  const csv = () => download(`${series.name}.csv`, URL.createObjectURL(
    new Blob([`${series.name}\n${series.values.join("\n")}\n`], { type: "text/csv" })));
  const png = () => plot.current && download(`${series.name}-cdf.png`, plot.current.ctx.canvas.toDataURL("image/png"));

  return (
    <section className="metrics-panel card" data-testid="metrics-panel" aria-label="Metrics">
      <div className="metrics-toolbar">
        <h2>Metrics</h2>
        <select aria-label="Metric" data-testid="metric-select" value={series.name} onChange={(e) => setChosen(e.target.value)}>
          {names.map((n) => <option key={n} value={n}>{n}</option>)}
        </select>
        <label><input type="checkbox" checked={logScale} onChange={(e) => setLogScale(e.target.checked)} /> log scale</label>
        <span className="muted" data-testid="metric-count">n = {view.n}</span>
        <span className="muted">p50 {fmt(view.p50, view.unit)} · p90 {fmt(view.p90, view.unit)}</span>
        <input aria-label="Compare with job" data-testid="compare-job" size={8} placeholder="compare #"
          value={compareText} onChange={(e) => setCompareText(e.target.value)} />
        {compare.isError && <span className="error-text">cannot load job #{compareId}</span>}
        <button type="button" onClick={csv}>CSV</button>
        <button type="button" onClick={png}>PNG</button>
      </div>
      <CdfPlot curves={view.curves} xLabel={`${series.name}${view.unit ? ` (${view.unit})` : ""}`}
        logScale={logScale} onPlot={(p) => { plot.current = p; }} />
      {series.hops.size > 0 && <HopHistogram hops={series.hops} />}
    </section>
  );
}
