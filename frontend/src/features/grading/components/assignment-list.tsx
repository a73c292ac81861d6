import { Link } from "react-router";
import { ErrorMessage } from "@/components/ui/error-message";
import { Spinner } from "@/components/ui/spinner";
import { formatDateTime } from "@/lib/format";
import { useAssignments } from "../api/get-assignments";
import { finalGradeText } from "../lib/final-grade";
import { formatScore, statusLabel } from "../lib/report";
import { PublishButton } from "./publish-button";
import { RegradeAllButton } from "./regrade-all-button";

interface AssignmentListProps {
  courseId: number;
  /** Instructors and TAs: unpublished ones too, marked. */
  staff: boolean;
  /** Instructors: publish or unpublish, and edit. */
  canPublish: boolean;
}

/** A course's assignments (students: published ones), each opening its IDE. */
export function AssignmentList({ courseId, staff, canPublish }: AssignmentListProps) {
  const assignments = useAssignments(courseId);
  if (assignments.isPending) return <Spinner label="Loading assignments…" />;
  if (assignments.isError) return <ErrorMessage error={assignments.error} title="Cannot load the assignments." />;
  if (assignments.data.length === 0) {
    return (
      <p className="muted" data-testid="no-assignments">
        No assignment yet.
        {staff && " Load one on the server: ./splaylab assignments load assignments/NAME --course SLUG."}
      </p>
    );
  }
  return (
    <ul className="assignment-list" data-testid="assignment-list">
      {assignments.data.map((a) => (
        <li key={a.id} className="card assignment-item" data-testid="assignment-item" data-slug={a.slug}>
          <div className="assignment-item-head">
            <Link to={`/courses/${courseId}/assignments/${encodeURIComponent(a.slug)}`} className="assignment-title">
              {a.title}
            </Link>
            {staff && !a.published && <span className="hidden-badge">not published</span>}
            {staff && (
              <span className="assignment-actions">
                <RegradeAllButton courseId={courseId} slug={a.slug} />
                {canPublish && <PublishButton courseId={courseId} assignment={a} />}
                {canPublish && (
                  <Link to={`/courses/${courseId}/assignments/${encodeURIComponent(a.slug)}/edit`} data-testid="assignment-edit-link">
                    Edit
                  </Link>
                )}
              </span>
            )}
          </div>
          {a.summary && <p className="assignment-summary">{a.summary}</p>}
          <div className="muted assignment-deadline">{a.deadline ? `Deadline ${formatDateTime(a.deadline)}` : "No deadline"}</div>
          {a.my_latest && (
            <div className="assignment-latest" data-testid="assignment-latest">
              Your latest submission:{" "}
              <Link to={`/submissions/${a.my_latest.id}`}>
                {a.my_latest.status === "graded"
                  ? `${formatScore(a.my_latest.final_score)} / 100`
                  : statusLabel(a.my_latest.status)}
              </Link>
            </div>
          )}
          {finalGradeText(a.my_grade, a.deadline) && (
            <div className="assignment-grade" data-testid="assignment-grade">
              {finalGradeText(a.my_grade, a.deadline)}
            </div>
          )}
        </li>
      ))}
    </ul>
  );
}
