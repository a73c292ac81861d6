import { errorText } from "@/components/ui/error-message";
import { useRegradeAssignment } from "../api/regrade-assignment";

/** Instructors and TAs: regrade every submission of an assignment (each keeps its earlier result in its history). */
export function RegradeAllButton({ courseId, slug }: { courseId: number; slug: string }) {
  const regrade = useRegradeAssignment(courseId);
  const onClick = () => {
    if (window.confirm(`Grade every submission of ${slug} again, under its current spec and deadline?`)) regrade.mutate(slug);
  };
  return (
    <span className="publish-control">
      <button type="button" data-testid="regrade-all-button" disabled={regrade.isPending} onClick={onClick}>
        Regrade all
      </button>
      {regrade.isSuccess && <span className="muted" role="status">{regrade.data.queued} queued</span>}
      {regrade.isError && <span className="error-text">{errorText(regrade.error)}</span>}
    </span>
  );
}
