import { ErrorMessage } from "@/components/ui/error-message";
import { useRegradeSubmission } from "../api/regrade-submission";

/** Instructors and TAs: grade this submission again (after a spec change, or a grader failure). */
export function RegradeButton({ submissionId, disabled }: { submissionId: number; disabled?: boolean }) {
  const regrade = useRegradeSubmission();
  return (
    <>
      <button type="button" data-testid="regrade-button" disabled={disabled || regrade.isPending} onClick={() => regrade.mutate(submissionId)}>
        {regrade.isPending ? "Regrading…" : "Regrade"}
      </button>
      {regrade.isError && <ErrorMessage error={regrade.error} />}
    </>
  );
}
