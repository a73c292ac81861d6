import type { SubmissionStatus } from "@/types/grading";
import { statusLabel } from "../lib/report";

/** A submission's status (queued, grading…, graded, grading failed), coloured as job states are. */
export function StatusBadge({ status, testId }: { status: SubmissionStatus; testId?: string }) {
  return (
    <span className={`state-badge submission-${status}`} data-testid={testId} data-status={status}>
      {statusLabel(status)}
    </span>
  );
}
