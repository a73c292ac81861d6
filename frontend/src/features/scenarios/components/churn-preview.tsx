import { ErrorMessage } from "@/components/ui/error-message";
import type { PreviewState } from "../lib/preview-state";
import { previewSummary } from "../lib/preview-series";
import { ChurnPlots } from "./churn-plots";
import { ChurnErrors, PreviewNotes } from "./preview-lists";

/** The live preview: the errors of the latest text, and the last valid preview's summary,
 * figure 4, warnings and network events (dimmed while the text has errors). */
export function ChurnPreview({ state }: { state: PreviewState }) {
  const { preview, errors, failure, pending } = state;
  const stale = errors.length > 0 || failure !== null;
  const status = pending ? "updating…" : stale && preview ? "showing the last valid text" : "";
  return (
    <section className="churn-preview card" data-testid="churn-preview" aria-label="Preview" aria-busy={pending}>
      <div className="churn-preview-head">
        <h2>Preview</h2>
        <span className="churn-status muted" data-testid="churn-status">{status}</span>
      </div>
      {failure !== null && <ErrorMessage error={failure} title="Cannot preview." />}
      <ChurnErrors errors={errors} />
      {preview ? (
        <div className={stale ? "churn-figure stale" : "churn-figure"}>
          <p className="churn-summary" data-testid="churn-summary">{previewSummary(preview)}</p>
          <ChurnPlots preview={preview} />
          <PreviewNotes preview={preview} />
        </div>
      ) : (
        !pending && !stale && <p className="muted">Write a scenario: its population appears here.</p>
      )}
    </section>
  );
}
