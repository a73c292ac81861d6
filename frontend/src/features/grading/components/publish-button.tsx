import { errorText } from "@/components/ui/error-message";
import type { AssignmentSummary } from "@/types/grading";
import { useUpdateAssignment } from "../api/update-assignment";

/** Instructors: students see published assignments only (a loaded folder starts unpublished). */
export function PublishButton({ courseId, assignment }: { courseId: number; assignment: AssignmentSummary }) {
  const update = useUpdateAssignment(courseId);
  const next = !assignment.published;
  return (
    <span className="publish-control">
      <button
        type="button"
        data-testid="publish-button"
        disabled={update.isPending}
        onClick={() => update.mutate({ slug: assignment.slug, input: { published: next } })}
      >
        {next ? "Publish" : "Unpublish"}
      </button>
      {update.isError && <span className="error-text">{errorText(update.error)}</span>}
    </span>
  );
}
