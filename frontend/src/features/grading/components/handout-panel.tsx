import { useMemo } from "react";
import { formatDateTime } from "@/lib/format";
import type { AssignmentDetail } from "@/types/grading";
import { renderMarkdown } from "../lib/markdown";

/** The assignment's handout (its README, sanitised markdown), with the deadline and the late policy. */
export function HandoutPanel({ assignment }: { assignment: AssignmentDetail }) {
  const html = useMemo(() => renderMarkdown(assignment.handout), [assignment.handout]);
  return (
    <section className="card handout-panel" aria-label="Handout" data-testid="handout-panel">
      <div className="handout-facts muted" data-testid="assignment-deadline">
        {assignment.deadline ? (
          <>
            Deadline {formatDateTime(assignment.deadline)}
            {assignment.max_late_days > 0 && (
              <>
                {" "}· late: −{assignment.late_penalty_percent} % per day, up to {assignment.max_late_days} day
                {assignment.max_late_days === 1 ? "" : "s"} (closes {formatDateTime(assignment.closes_at)})
              </>
            )}
          </>
        ) : (
          "No deadline"
        )}
      </div>
      {html ? (
        // renderMarkdown keeps only inert HTML (DOMPurify): no script, handler or javascript: URL.
        <div className="markdown" data-testid="handout" dangerouslySetInnerHTML={{ __html: html }} />
      ) : (
        <p className="muted" data-testid="handout">This assignment has no handout.</p>
      )}
    </section>
  );
}
