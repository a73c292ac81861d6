import { useMemo } from "react";
import uPlot from "uplot";
import type { ChurnPreviewOk } from "@/types/api";
import { binSeries, formatSeconds, populationSeries, timeAxis, type TimeAxis } from "../lib/preview-series";
import { UPlotChart } from "@/components/ui/uplot-chart";

/** Both y axes as wide, so that the two panels' time axes line up; the cursor moves in both. */
const Y_AXIS_SIZE = 60;
const SYNC_KEY = "churn-preview";
const JOIN = "#2e8b57";
const LEAVE = "#c22f2f";
/** Node counts are whole: no 0.5 ticks. */
const WHOLE_INCRS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000, 10_000, 20_000, 50_000, 100_000];

/** Legend values: an empty bin is 0; leaves are drawn below the axis but counted positive. */
const count = (_u: uPlot, v: number | null) => String(Math.abs(v ?? 0));

const xScale: uPlot.Scale = { time: false, range: (_u, _min, max) => [0, max] };
const xAxis = (axis: TimeAxis): uPlot.Axis => ({ label: axis.label });

function populationOptions(axis: TimeAxis, width: number): uPlot.Options {
  return {
    width,
    height: 200,
    cursor: { sync: { key: SYNC_KEY } },
    scales: { x: xScale, y: { range: (_u, _min, max) => [0, Math.max(1, max) * 1.1] } },
    axes: [xAxis(axis), { label: "population (nodes)", size: Y_AXIS_SIZE, incrs: WHOLE_INCRS }],
    series: [
      { label: axis.label },
      { label: "population", stroke: "#2457c5", width: 2, fill: "rgba(36, 87, 197, 0.12)",
        paths: uPlot.paths.stepped?.({ align: 1 }), points: { show: false } },
    ],
  };
}

function binOptions(axis: TimeAxis, bin: number, width: number): uPlot.Options {
  const bars = uPlot.paths.bars?.({ size: [0.8, Infinity, 1] });
  return {
    width,
    height: 180,
    cursor: { sync: { key: SYNC_KEY } },
    scales: {
      x: xScale,
      y: { range: (_u, min, max) => [Math.min(0, min ?? 0) * 1.1 || -1, Math.max(0, max ?? 0) * 1.1 || 1] },
    },
    // the legend tells joins (up) from leaves (down); a long label would not fit the height
    axes: [xAxis(axis), { label: `nodes per ${formatSeconds(bin)}`, size: Y_AXIS_SIZE, incrs: WHOLE_INCRS }],
    series: [
      { label: axis.label },
      { label: "joins", fill: JOIN, stroke: JOIN, width: 1, fillTo: 0, paths: bars, points: { show: false }, value: count },
      { label: "leaves", fill: LEAVE, stroke: LEAVE, width: 1, fillTo: 0, paths: bars, points: { show: false }, value: count },
    ],
  };
}

/** The SPLAY paper's figure 4: the population over time above the joins and leaves per bin,
 * on one time axis (s, or min from 10 minutes on). */
export function ChurnPlots({ preview }: { preview: ChurnPreviewOk }) {
  const axis = useMemo(() => timeAxis(preview), [preview]);
  const population = useMemo<uPlot.AlignedData>(() => populationSeries(preview.population, axis), [preview, axis]);
  const bins = useMemo<uPlot.AlignedData>(() => binSeries(preview.bins, preview.bin, axis), [preview, axis]);
  return (
    <div className="churn-plots">
      <UPlotChart className="churn-plot" testId="churn-population" optionsKey={axis.label} data={population}
        options={(width) => populationOptions(axis, width)} />
      <UPlotChart className="churn-plot" testId="churn-bins" optionsKey={`${axis.label} ${preview.bin}`} data={bins}
        options={(width) => binOptions(axis, preview.bin, width)} />
    </div>
  );
}
