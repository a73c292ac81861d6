import { ErrorMessage } from "@/components/ui/error-message";
import { useOwnChurnCheck } from "../hooks/use-own-churn-check";
import { churnBytes, MAX_CHURN_BYTES } from "../lib/churn-choice";
import { churnErrorLabel, ownChurnSummary } from "../lib/own-churn-check";
import "./own-churn.css";

interface OwnChurnEditorProps {
  text: string;
  onText: (text: string) => void;
  /** Why Run did not send the text (e.g. empty), null when it can be sent. */
  problem?: string | null;
}

const EXAMPLE = "at 0s join 10\nfrom 10s to 40s const churn 20%\nat 60s stop";

/** The run bar's "my own scenario…": a churn text (docs/churn.md) checked as it is typed,
 * its errors by line or what it will run ("12 nodes, ends at 45 s"). Run sends it as
 * `churn`; it is not saved to the library. */
export function OwnChurnEditor({ text, onText, problem = null }: OwnChurnEditorProps) {
  const check = useOwnChurnCheck(text);
  const tooLarge = churnBytes(text) > MAX_CHURN_BYTES;
  // one row a line, 4 to 12: the whole of a small scenario is in view
  const rows = Math.min(12, Math.max(4, text.split("\n").length));
  const stale = check.errors.length > 0 || check.failure !== null;
  return (
    <div className="run-own-churn" data-testid="run-own-churn">
      <label htmlFor="run-own-churn-text">Your churn scenario</label>
      <textarea id="run-own-churn-text" data-testid="run-own-churn-text" rows={rows} spellCheck={false}
        placeholder={EXAMPLE} value={text} onChange={(e) => onText(e.target.value)}
        aria-describedby="run-own-churn-help run-own-churn-status" aria-invalid={check.errors.length > 0 || tooLarge} />
      <p id="run-own-churn-help" className="muted run-own-churn-help">
        One statement a line, the language of the <a href="/scenarios" target="_blank" rel="noreferrer">Scenarios</a> page;
        at most 1 MB. Checked as you type; it runs with your job and is not saved to the library.
      </p>
      <div id="run-own-churn-status" className="run-own-churn-status" aria-live="polite" aria-busy={check.pending}>
        {problem && <p className="error-text" role="alert" data-testid="run-own-churn-problem">{problem}</p>}
        {tooLarge && !problem && <p className="error-text">The scenario is larger than 1 MB.</p>}
        {check.failure !== null && <ErrorMessage error={check.failure} title="Cannot check the scenario." />}
        {check.errors.length > 0 && (
          <ul className="error-text" data-testid="run-own-churn-errors">
            {check.errors.map((e) => <li key={`${e.line}:${e.column}:${e.message}`}>{churnErrorLabel(e)}</li>)}
          </ul>
        )}
        {check.preview && !tooLarge && text.trim() && (
          <p className={stale ? "run-own-churn-summary stale" : "run-own-churn-summary"} data-testid="run-own-churn-summary">
            {stale ? "last valid text: " : ""}{ownChurnSummary(check.preview)}
            {check.preview.warnings.length > 0 && <span className="muted"> · {check.preview.warnings.map((w) => `line ${w.line}: ${w.message}`).join(" · ")}</span>}
          </p>
        )}
        {check.pending && <span className="muted">checking…</span>}
      </div>
    </div>
  );
}
