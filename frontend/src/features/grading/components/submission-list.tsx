import { Link } from "react-router";
import { ErrorMessage } from "@/components/ui/error-message";
import { formatDateTime } from "@/lib/format";
import { useSubmissions } from "../api/get-submissions";
import { useSubmissionUpdates } from "../hooks/use-submission-updates";
import { formatScore } from "../lib/report";
import { StatusBadge } from "./status-badge";

interface SubmissionListProps {
  courseId: number;
  slug: string;
  title?: string;
  /** Instructors and TAs see everyone's: say whose. */
  showStudent?: boolean;
}

/** The submissions of an assignment (a student's own), newest first; refreshed while one is
 * graded (pushed for one's own, polled for others'). */
export function SubmissionList({ courseId, slug, title = "Your submissions", showStudent = false }: SubmissionListProps) {
  const submissions = useSubmissions(courseId, slug);
  useSubmissionUpdates();
  return (
    <section className="card submission-list" aria-label={title}>
      <h2>{title}</h2>
      {submissions.isPending && <p className="muted">Loading…</p>}
      {submissions.isError && <ErrorMessage error={submissions.error} />}
      {submissions.data?.length === 0 && <p className="muted">None yet.</p>}
      <ul>
        {submissions.data?.map((s) => (
          <li key={s.id} data-testid="submission-item" data-submission-id={s.id} data-status={s.status}>
            <Link to={`/submissions/${s.id}`} className="submission-link">
              <span className="job-id">#{s.id}</span>
              <span className="submission-score" data-testid="submission-score">
                {s.status === "graded" ? formatScore(s.final_score) : ""}
              </span>
              <StatusBadge status={s.status} testId="submission-status" />
            </Link>
            <div className="job-meta muted">
              {formatDateTime(s.created_at)}
              {showStudent ? ` · ${s.student}` : ""}
              {s.late_days > 0 ? ` · ${s.late_days} day${s.late_days === 1 ? "" : "s"} late` : ""}
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}
