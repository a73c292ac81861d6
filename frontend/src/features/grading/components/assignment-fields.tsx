import type { AssignmentDraftState } from "../hooks/use-assignment-draft";

/** Title, summary, deadline (local time, or none) and published. */
export function AssignmentFields({ state }: { state: AssignmentDraftState }) {
  const { draft, set, localError } = state;
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return (
    <div className="card edit-fields">
      <label>
        Title
        <input data-testid="edit-title" value={draft.title} maxLength={200} onChange={(e) => set("title", e.target.value)} />
      </label>
      <label>
        Summary <span className="muted">(one line, shown in the course's list)</span>
        <input data-testid="edit-summary" value={draft.summary} maxLength={500} onChange={(e) => set("summary", e.target.value)} />
      </label>
      <div className="edit-deadline">
        <label>
          Deadline <span className="muted">({zone})</span>
          <input
            type="datetime-local"
            data-testid="edit-deadline"
            value={draft.deadline}
            disabled={draft.noDeadline}
            onChange={(e) => set("deadline", e.target.value)}
          />
        </label>
        <label className="checkbox">
          <input
            type="checkbox"
            data-testid="edit-no-deadline"
            checked={draft.noDeadline}
            onChange={(e) => set("noDeadline", e.target.checked)}
          />
          No deadline
        </label>
        <label className="checkbox">
          <input
            type="checkbox"
            data-testid="edit-published"
            checked={draft.published}
            onChange={(e) => set("published", e.target.checked)}
          />
          Published (students see it)
        </label>
      </div>
      {localError?.field === "deadline" && (
        <p className="error-text" role="alert" data-testid="deadline-error">
          {localError.message}
        </p>
      )}
    </div>
  );
}
