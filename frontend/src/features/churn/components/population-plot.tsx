import uPlot from "uplot";
import { UPlotChart } from "@/components/ui/uplot-chart";

const X_LABEL = "seconds since the scenario start (s)";
const PLANNED = "#e07b24";
const ACTUAL = "#2457c5";
/** Node counts are whole: no 0.5 ticks. */
const WHOLE_INCRS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000, 10_000, 20_000, 50_000, 100_000];

function options(width: number): uPlot.Options {
  const stepped = uPlot.paths.stepped?.({ align: 1 });
  return {
    width,
    height: 200,
    scales: {
      x: { time: false, range: (_u, min, max) => [Math.min(0, min), max] },
      y: { range: (_u, _min, max) => [0, Math.max(1, max) * 1.1] },
    },
    axes: [{ label: X_LABEL }, { label: "population (nodes)", size: 60, incrs: WHOLE_INCRS }],
    series: [
      { label: X_LABEL },
      { label: "actual", stroke: ACTUAL, width: 2, fill: "rgba(36, 87, 197, 0.12)", paths: stepped, points: { show: false } },
      // dashed and drawn last: visible on top of the actual line where both agree
      { label: "planned", stroke: PLANNED, width: 2, dash: [6, 4], paths: stepped, points: { show: false } },
    ],
    legend: { show: true },
  };
}

/** The planned population (dashed, on top) and the actual one (from the join/leave/fail events) over
 * the run, on the time axis of the metric time series (seconds since the scenario start). */
export function PopulationPlot({ columns }: { columns: uPlot.AlignedData }) {
  return <UPlotChart className="churn-plot" testId="churn-plot" optionsKey="population" data={columns} options={options} />;
}
