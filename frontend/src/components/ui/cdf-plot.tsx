import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

export interface CdfCurve {
  label: string;
  x: number[]; // sorted values, display units
  y: number[]; // fraction of samples <= x
}

interface CdfPlotProps {
  curves: CdfCurve[];
  xLabel: string;
  logScale: boolean;
  /** Gets the uPlot instance (PNG export reads its canvas). */
  onPlot?: (plot: uPlot | null) => void;
}

/** The first curve (the own run, the submission), then the compared ones, each its own colour. */
const COLOURS = ["#4f8cff", "#ff7f50", "#2e8b57", "#c792ea", "#d4a017", "#e0457b", "#17a2b8"];

/** uPlot needs one shared x array: merge the curves' x values, each curve stepping through. */
function align(curves: CdfCurve[]): uPlot.AlignedData {
  const xs = [...new Set(curves.flatMap((c) => c.x))].sort((a, b) => a - b);
  const ys = curves.map((c) => {
    let i = -1;
    return xs.map((x) => {
      while (i + 1 < c.x.length && c.x[i + 1]! <= x) i++;
      return i < 0 ? 0 : c.y[i]!;
    });
  });
  return [xs, ...ys];
}

/** CDFs, a step curve per run (the own run exact from its samples, others from their
 * histograms), drawn with uPlot; redrawn in place as data grows. */
export function CdfPlot({ curves, xLabel, logScale, onPlot }: CdfPlotProps) {
  const holder = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const labels = curves.map((c) => c.label).join("\n");

  useEffect(() => {
    const el = holder.current;
    if (!el) return;
    const opts: uPlot.Options = {
      width: Math.max(300, el.clientWidth),
      height: 260,
      scales: { x: { time: false, distr: logScale ? 3 : 1 }, y: { range: [0, 1] } },
      axes: [{ label: xLabel }, { label: "fraction of samples ≤ x" }],
      series: [{ label: xLabel }, ...curves.map((c, i) => ({
        label: c.label, stroke: COLOURS[i % COLOURS.length], width: 2, paths: uPlot.paths.stepped?.({ align: 1 }),
      }))],
      legend: { show: true },
    };
    const p = new uPlot(opts, align(curves), el);
    plot.current = p;
    onPlot?.(p);
    const resize = new ResizeObserver(() => p.setSize({ width: Math.max(300, el.clientWidth), height: 260 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      p.destroy();
      plot.current = null;
      onPlot?.(null);
    };
    // the plot is rebuilt when the axis kind or the set of curves changes; data updates below
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [logScale, xLabel, labels]);

  useEffect(() => {
    plot.current?.setData(align(curves));
  }, [curves]);

  return <div ref={holder} className="cdf-plot" data-testid="cdf-plot" />;
}
