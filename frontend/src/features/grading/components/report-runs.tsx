import type { ReportRun } from "@/types/grading";
import { runSetup, runTiming } from "../lib/report";

/** The runs the grader made for this submission (and the reference's, for comparisons), with what
 * the output limits cut from each (its warnings). */
export function ReportRuns({ runs }: { runs: ReportRun[] }) {
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
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
