import { errorText } from "@/components/ui/error-message";
import type { SaveState } from "../hooks/use-workspace-file";

const LABELS: Record<SaveState, string> = {
  saved: "saved",
  unsaved: "unsaved",
  saving: "saving…",
  error: "save failed",
};

interface SaveStatusProps {
  state: SaveState;
  error: unknown;
  onSave: () => void;
}

export function SaveStatus({ state, error, onSave }: SaveStatusProps) {
  return (
    <div className="save-bar">
      <span
        className={`save-status save-${state}`}
        data-testid="save-status"
        data-state={state}
        title={state === "error" ? errorText(error) : "Changes are saved automatically (Ctrl+S saves now)"}
        aria-live="polite"
      >
        {LABELS[state]}
      </span>
      {state === "error" && (
        <span className="save-error-text" role="alert" data-testid="save-error">
          {errorText(error)}
        </span>
      )}
      <button type="button" onClick={onSave} disabled={state === "saving"}>
        Save
      </button>
    </div>
  );
}
