import { formatDateTime } from "@/lib/format";
import type { SubmissionDetail } from "@/types/grading";
import { formatScore, statusLabel } from "../lib/report";

/** The submitted code (it never changes) and, for instructors and TAs, the earlier gradings. */
export function ReportSource({ submission }: { submission: SubmissionDetail }) {
  return (
    <section className="card report-source">
      <details>
        <summary>Submitted code ({submission.source.split("\n").length} lines)</summary>
        <pre className="cli-example" data-testid="submission-source">
          {submission.source}
        </pre>
      </details>
      {submission.history && submission.history.length > 0 && (
        <details>
          <summary>Earlier gradings ({submission.history.length})</summary>
          <ul>
            {submission.history.map((h) => (
              <li key={h.attempt}>
                #{h.attempt}: {statusLabel(h.status)}, score {formatScore(h.score)} → {formatScore(h.final_score)},{" "}
                {formatDateTime(h.graded_at)}
                {h.error ? ` (${h.error})` : ""}
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}
