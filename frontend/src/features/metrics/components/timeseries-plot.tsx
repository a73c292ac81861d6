import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import type { MetricKind } from "@/types/api";
import type { WindowStats } from "../lib/time-windows";

interface TimeseriesPlotProps {
  stats: WindowStats;
  kind: MetricKind;
  /** Metric name and unit, e.g. "lookup_latency (ms)". */
  yLabel: string;
  /** Display unit factor (displayUnit's scale). */
  scale: number;
  /** What x counts from when stats were cut from an origin, e.g. "the scenario start"; without
   * it, the first sample. */
  originLabel?: string;
  /** Gets the uPlot instance (PNG export reads its canvas). */
  onPlot?: (plot: uPlot | null) => void;
}

const HEIGHT = 220;

/** uPlot columns: an observation's p10, p50, p90 per window; a count's sum per second. */
function columns(stats: WindowStats, kind: MetricKind, scale: number): uPlot.AlignedData {
  const s = (ys: (number | null)[]) => ys.map((v) => (v === null ? null : v * scale));
  return kind === "count" ? [stats.x, stats.rate] : [stats.x, s(stats.p10), s(stats.p50), s(stats.p90)];
}

function options(kind: MetricKind, xLabel: string, yLabel: string, fromZero: boolean, width: number): uPlot.Options {
  const observed: uPlot.Series[] = [
    { label: "p10", stroke: "rgba(79, 140, 255, 0.5)", width: 1 },
    { label: "p50", stroke: "#4f8cff", width: 2 },
    { label: "p90", stroke: "rgba(79, 140, 255, 0.5)", width: 1 },
  ];
  return {
    width,
    height: HEIGHT,
    // from an origin, the axis starts at it (0), as the plots it lines up with do
    scales: { x: fromZero ? { time: false, range: (_u, min, max) => [Math.min(0, min), max] } : { time: false } },
    axes: [{ label: xLabel }, { label: kind === "count" ? `${yLabel} per s` : yLabel }],
    // the legend names the cursor's x briefly; the axis below says what it counts from
    series: [{ label: "time (s)" }, ...(kind === "count" ? [{ label: "per s", stroke: "#2e8b57", width: 2 }] : observed)],
    // The p10–p90 band: uPlot fills between the series at these indices (upper, lower).
    bands: kind === "count" ? [] : [{ series: [3, 1], fill: "rgba(79, 140, 255, 0.15)" }],
    legend: { show: true },
  };
}

/** The metric over the run: per time window the median and the p10–p90 band (a count: its
 * rate), x in seconds since the origin or the first sample; redrawn in place as data grows. */
export function TimeseriesPlot({ stats, kind, yLabel, scale, originLabel, onPlot }: TimeseriesPlotProps) {
  const holder = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const xLabel = `seconds since ${originLabel ?? "the first sample"} (${stats.window} s windows)`;

  useEffect(() => {
    const el = holder.current;
    if (!el) return;
    const p = new uPlot(options(kind, xLabel, yLabel, originLabel !== undefined, Math.max(300, el.clientWidth)),
      columns(stats, kind, scale), el);
    plot.current = p;
    onPlot?.(p);
    const resize = new ResizeObserver(() => p.setSize({ width: Math.max(300, el.clientWidth), height: HEIGHT }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      p.destroy();
      plot.current = null;
      onPlot?.(null);
    };
    // rebuilt when the axes change (metric, unit, window length); data updates below
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [kind, xLabel, yLabel, originLabel]);

  useEffect(() => {
    plot.current?.setData(columns(stats, kind, scale));
  }, [stats, kind, scale]);

  // the canvas draws the axes' labels; its readers (and tests) get them here
  return (
    <div ref={holder} className="timeseries-plot" data-testid="metric-timeseries" role="img"
      aria-label={`${kind === "count" ? `${yLabel} per s` : yLabel} over ${xLabel}`} />
  );
}
