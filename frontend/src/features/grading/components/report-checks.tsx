import type { ReportCheck } from "@/types/grading";
import { checksSummary, formatPoints } from "../lib/report";

/** Each check: passed or not, its points against its weight, and the grader's reason. */
export function ReportChecks({ checks, deadline }: { checks: ReportCheck[]; deadline: string | null }) {
  if (checks.length === 0) return null;
  const hiddenTitle = deadline ? "Hidden from students until the deadline" : "Hidden from students (the assignment has no deadline)";
  return (
    <section className="card report-checks" aria-label="Checks">
      <h2>
        Checks <span className="muted report-summary">{checksSummary(checks)}</span>
      </h2>
      <table>
        <thead>
          <tr>
            <th>Check</th>
            <th>Result</th>
            <th className="num">Points</th>
            <th>Why</th>
          </tr>
        </thead>
        <tbody>
          {checks.map((check) => (
            <tr key={check.name} data-testid="report-check" data-passed={check.passed} className={check.passed ? "check-passed" : "check-failed"}>
              <td className="check-name" data-testid="report-check-name">
                {check.name}
                {check.hidden && <span className="hidden-badge" title={hiddenTitle}>hidden</span>}
                <div className="muted check-kind">
                  {check.check}
                  {check.run ? ` · run ${check.run}` : ""}
                </div>
              </td>
              <td className="check-result">{check.passed ? "✓ passed" : "✗ failed"}</td>
              <td className="num" data-testid="report-check-points">
                {formatPoints(check)}
              </td>
              <td className="check-message" data-testid="report-check-message">
                {check.message}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
