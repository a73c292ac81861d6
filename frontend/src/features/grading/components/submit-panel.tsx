import { Link } from "react-router";
import { ErrorMessage } from "@/components/ui/error-message";
import { useCreateSubmission } from "../api/create-submission";

interface SubmitPanelProps {
  courseId: number;
  slug: string;
  /** The code to submit, read when Submit is pressed (null: not loaded yet). */
  getSource: () => string | null;
  /** Called first (flush the autosave); a failure does not block the submission. */
  beforeSubmit?: () => Promise<void>;
}

/** Submit: the editor's text becomes an immutable submission, graded in the background. A
 * refusal (429 rate limit, 403 closed, 400 empty) is shown as the server words it. */
export function SubmitPanel({ courseId, slug, getSource, beforeSubmit }: SubmitPanelProps) {
  const create = useCreateSubmission(courseId, slug);

  const submit = async () => {
    const source = getSource();
    if (source === null) return;
    await beforeSubmit?.().catch(() => undefined);
    create.mutate(source);
  };

  // The file is read from the server after the page opens: until it is, Submit has nothing to
  // send and would do nothing, so it says so instead of looking ready.
  const loading = getSource() === null;

  return (
    <div className="submit-panel" data-testid="submit-panel">
      <button type="button" className="primary" data-testid="submit-button" disabled={create.isPending || loading}
        title={loading ? "The file is still loading" : undefined} onClick={() => void submit()}>
        {create.isPending ? "Submitting…" : loading ? "Loading…" : "Submit for grading"}
      </button>
      {create.isSuccess && (
        <span className="muted" data-testid="submit-result" role="status">
          Submitted as <Link to={`/submissions/${create.data.id}`}>#{create.data.id}</Link>: grading in the background.
        </span>
      )}
      {create.isError && (
        <div data-testid="submit-error">
          <ErrorMessage error={create.error} title="Not submitted:" />
        </div>
      )}
    </div>
  );
}
