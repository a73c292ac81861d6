import type { ChurnError, ChurnPreviewOk } from "@/types/api";
import { errorLabel } from "../lib/preview-state";

/** The latest text's errors, one per bad line ("line 2, column 6: …"), also marked in the editor. */
export function ChurnErrors({ errors }: { errors: ChurnError[] }) {
  if (errors.length === 0) return null;
  return (
    <ul className="churn-errors error-box" role="alert" data-testid="churn-errors">
      {errors.map((error) => (
        <li key={`${error.line}:${error.column}:${error.message}`}>{errorLabel(error)}</li>
      ))}
    </ul>
  );
}

/** Skipped joins or leaves (warnings) and the network events of the scenario. */
export function PreviewNotes({ preview }: { preview: ChurnPreviewOk }) {
  return (
    <>
      {preview.warnings.length > 0 && (
        <div className="churn-notes">
          <h3>Warnings</h3>
          <ul data-testid="churn-warnings">
            {preview.warnings.map((w, i) => (
              <li key={i}>
                line {w.line}: {w.message}
              </li>
            ))}
          </ul>
        </div>
      )}
      {preview.network.length > 0 && (
        <div className="churn-notes">
          <h3>Network events</h3>
          <ul data-testid="churn-network">
            {preview.network.map((event, i) => (
              <li key={i}>{event.text}</li>
            ))}
          </ul>
        </div>
      )}
    </>
  );
}
