import { Link } from "react-router";
import type { ReportRun } from "@/types/grading";
import { runSetup, runTiming } from "../lib/report";
import { ReportRunLogs } from "./report-run-logs";

interface ReportRunsProps {
  runs: ReportRun[];
  /** The assignment page's address opening the run bar with a run's settings. */
  setupPath: (run: ReportRun) => string;
}

/** The runs the grader made for this submission (and the reference's, for comparisons), with what
 * the output limits cut from each (its warnings), a link to run the same setup, and the logs the
 * report keeps of the runs a visible check reads. */
export function ReportRuns({ runs, setupPath }: ReportRunsProps) {
  if (runs.length === 0) return null;
  return (
    <section className="card report-runs" aria-label="Runs">
      <h2>Runs</h2>
      <table>
        <thead>
          <tr>
            <th>Run</th>
            <th>Setup</th>
            <th>Wall time</th>
            <th>Outcome</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => (
            <tr key={run.name} data-testid="report-run">
              <td className="mono">{run.name}</td>
              <td>{runSetup(run)}</td>
              <td>{runTiming(run)}</td>
              <td>
                <span className={run.failure ? "error-text" : ""}>{run.failure ?? "ran to the end"}</span>
                {(run.warnings ?? []).map((warning) => (
                  <div key={warning} className="muted" data-testid="report-run-warning">
                    {warning}
                  </div>
                ))}
              </td>
              <td>
                <Link to={setupPath(run)} data-testid="run-grader-setup" aria-label={`Run the grader's setup of run ${run.name}`}
                  title="Open the editor with this run's settings in the run bar">
                  Run the grader's setup
                </Link>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {runs.map((run) => (
        <ReportRunLogs key={run.name} run={run} />
      ))}
      {runs.some((run) => run.logs) && (
        <p className="muted report-trace-note">
          The grader keeps no message trace of its runs: run its setup as a simulation with the grader's harness, and that
          job's page draws the messages.
        </p>
      )}
    </section>
  );
}
