import { formatDateTime } from "@/lib/format";
import type { SubmissionDetail } from "@/types/grading";
import { finalGradeText } from "../lib/final-grade";
import { isPending, scoreText, withheldNote } from "../lib/report";
import { StatusBadge } from "./status-badge";

/** The head of a report: status, score (with the late penalty) and what it leaves out. */
export function ReportScore({ submission }: { submission: SubmissionDetail }) {
  const note = withheldNote(submission.hidden_withheld, submission.deadline);
  const grade = finalGradeText(submission.final_grade, submission.deadline);
  const compileError = submission.report.compile_error;
  return (
    <section className="card report-score" aria-label="Score">
      <div className="report-score-row">
        <StatusBadge status={submission.status} testId="submission-status" />
        <span className="report-score-value" data-testid="submission-score">
          {scoreText(submission)}
        </span>
      </div>
      {grade && (
        <p className="report-final-grade" data-testid="final-grade">
          {grade}
        </p>
      )}
      <dl className="job-facts">
        <dt>Submitted</dt>
        <dd>
          {formatDateTime(submission.created_at)} by {submission.student}
        </dd>
        <dt>Graded</dt>
        <dd>
          {formatDateTime(submission.graded_at)}
          {submission.attempt > 1 ? ` (grading #${submission.attempt})` : ""}
        </dd>
        <dt>Code</dt>
        <dd className="mono" title={submission.sha256}>
          sha256 {submission.sha256.slice(0, 12)}
        </dd>
      </dl>
      {isPending(submission.status) && (
        <p className="muted" role="status">
          The grader runs your code in the background; this page updates when it is done.
        </p>
      )}
      {note && (
        <p className="muted" data-testid="hidden-withheld">
          {note}
        </p>
      )}
      {compileError && (
        <pre className="editor-error" data-testid="compile-error">
          Your code does not compile: {compileError}
        </pre>
      )}
      {submission.error && (
        <div className="error-box" data-testid="grading-error">
          {submission.error}
        </div>
      )}
    </section>
  );
}
