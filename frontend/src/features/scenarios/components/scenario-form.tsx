import type { FormEvent } from "react";
import { saveErrors } from "../lib/save-errors";
import type { ScenarioDraft } from "../lib/scenario-draft";

interface ScenarioFormProps {
  draft: ScenarioDraft;
  dirty: boolean;
  canWrite: boolean;
  saving: boolean;
  saveError: unknown;
  onEdit: (patch: Partial<Omit<ScenarioDraft, "id">>) => void;
  onSave: () => void;
  onDelete: () => void;
}

/** Name, description, Save and Delete for whoever may write this scenario (a new one: course
 * staff; a saved one: its author); the name alone for others (who may still edit the text to
 * try it: the preview follows, nothing is saved). */
export function ScenarioForm({ draft, dirty, canWrite, saving, saveError, onEdit, onSave, onDelete }: ScenarioFormProps) {
  if (!canWrite) {
    return (
      <div className="scenario-form">
        <h1 data-testid="scenario-name">{draft.name || "New scenario"}</h1>
        {draft.description && <p className="scenario-description muted">{draft.description}</p>}
        <p className="scenario-note muted">
          Edit the text to try it; a library scenario is saved by its author (instructors and TAs add new ones).
        </p>
      </div>
    );
  }

  const errors = saveErrors(saveError);
  const fieldErrors = errors ? [...errors.name.map((m) => `name: ${m}`), ...errors.description.map((m) => `description: ${m}`), ...errors.text] : [];
  const status = saving ? "saving…" : draft.id === null ? "not in the library yet" : dirty ? "unsaved changes" : "saved";
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    onSave();
  };

  return (
    <form className="scenario-form" onSubmit={onSubmit}>
      <div className="scenario-fields">
        <label>
          Name
          <input data-testid="scenario-name" value={draft.name} maxLength={100} placeholder="e.g. massive failure"
            onChange={(e) => onEdit({ name: e.target.value })} />
        </label>
        <label className="scenario-description-field">
          Description
          <input data-testid="scenario-description" value={draft.description} placeholder="what students should look for"
            onChange={(e) => onEdit({ description: e.target.value })} />
        </label>
        <button type="submit" className="primary" data-testid="scenario-save" disabled={saving || (draft.id !== null && !dirty)}>
          {draft.id === null ? "Save to library" : "Save"}
        </button>
        {draft.id !== null && (
          <button type="button" className="danger" data-testid="scenario-delete" disabled={saving} onClick={onDelete}>
            Delete
          </button>
        )}
        <span className={`save-status ${dirty || draft.id === null ? "save-unsaved" : "save-saved"}`} data-testid="scenario-save-status">
          {status}
        </span>
      </div>
      {errors && (
        <div className="error-box" role="alert" data-testid="scenario-save-error">
          <strong>Not saved.</strong>
          {fieldErrors.map((message) => <div key={message}>{message}</div>)}
          {errors.other && <div>{errors.other}</div>}
        </div>
      )}
    </form>
  );
}
