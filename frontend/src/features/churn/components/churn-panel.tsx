import { useMemo } from "react";
import type uPlot from "uplot";
import type { JobChurn } from "@/types/api";
import { useChurnStream, type ChurnHistoryState } from "../hooks/use-churn-stream";
import { useNow } from "../hooks/use-now";
import { actualSteps, incidents, populationAt, populationColumns, scenarioElapsed } from "../lib/population";
import { ChurnIncidents } from "./churn-incidents";
import { PopulationPlot } from "./population-plot";

interface ChurnPanelProps {
  jobId: number;
  churn: JobChurn;
  /** The job's end (ISO), null while it runs: "now" stops there. */
  endedAt: string | null;
  /** The job may still change: the clock ticks and the counts follow it. */
  active: boolean;
  /** A simulated job: the virtual time its simulator reached (its clock), else null. */
  virtualT?: number | null;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

function Facts({ churn }: { churn: JobChurn }) {
  return (
    <p className="churn-facts" data-testid="churn-facts">
      {/* "": a scenario given as text, or none (keep population alone runs as "at 0s join N") */}
      {churn.name ? <>scenario <strong>{churn.name}</strong></> : "unnamed scenario"}
      {" · "}keep population {churn.keep_population ? "on" : "off"}
      {" · "}{plural(churn.positions, "position")}
      {churn.keep_population && <>{" + "}{plural(churn.spares, "spare")}</>}
    </p>
  );
}

function HistoryNote({ history }: { history: ChurnHistoryState }) {
  if (history === "loading") return <p className="muted">Loading the population…</p>;
  if (history === "error") return <p className="form-error">Cannot load the job's churn.</p>;
  return null;
}

/** A job's churn: the planned population beside the actual one (joins, leaves and failures
 * as they happen), the counts now, and the failures and their replacements. */
export function ChurnPanel({ jobId, churn, endedAt, active, virtualT = null }: ChurnPanelProps) {
  const { plan, epoch: answeredEpoch, events, history } = useChurnStream(jobId);
  const epoch = churn.epoch ?? answeredEpoch;
  const nowMs = useNow(active ? 1000 : null);
  const elapsed = scenarioElapsed(epoch, endedAt, nowMs, events, virtualT);

  const actual = useMemo(() => actualSteps(events), [events]);
  const { failures, replacements } = useMemo(() => incidents(events), [events]);
  // The axis spans the plan (its stop, or its last instant) and the run so far, whichever is longer.
  const columns = useMemo<uPlot.AlignedData>(() => {
    const planned = plan?.population ?? [];
    const end = Math.max(plan?.end ?? plan?.duration ?? 0, elapsed ?? 0, 1);
    return populationColumns(planned, actual, end, elapsed);
  }, [plan, actual, elapsed]);
  const actualNow = actual.length ? actual[actual.length - 1]![1] : 0;
  const plannedNow = plan && elapsed !== null ? populationAt(plan.population, elapsed) : null;

  return (
    <section className="churn-panel card" data-testid="churn-panel" aria-label="Population">
      <div className="churn-panel-head">
        <h2>Population</h2>
        <span className="churn-counts">
          {active ? "now" : "at the end"}: actual <strong data-testid="churn-actual-count">{actualNow}</strong>
          {" · "}planned <strong data-testid="churn-planned-count">{plannedNow ?? "–"}</strong>
          {elapsed !== null && <span className="muted"> · t = {elapsed.toFixed(0)} s</span>}
        </span>
      </div>
      <Facts churn={churn} />
      <HistoryNote history={history} />
      <PopulationPlot columns={columns} />
      <ChurnIncidents failures={failures} replacements={replacements} />
    </section>
  );
}
