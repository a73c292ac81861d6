import { Link } from "react-router";
import type { GraderSetupParse } from "../lib/run-setup";
import { setupText } from "../lib/run-setup";

/** Above the run bar opened by a report's "Run the grader's setup": whose settings these are, and
 * what of the grading run they cannot repeat; or why the link's settings were not taken. */
export function GraderSetupNote({ parsed, withHarness }: { parsed: GraderSetupParse; withHarness: boolean }) {
  if (parsed === null) return null;
  if ("error" in parsed) {
    return (
      <p className="error-text" role="alert" data-testid="grader-setup-error">
        {parsed.error}
      </p>
    );
  }
  const s = parsed.setup;
  return (
    <div className="muted grader-setup-note" data-testid="grader-setup-note">
      <p>
        The grader's run <span className="mono">{s.run}</span>
        {s.from !== null && (
          <>
            {" "}(from <Link to={`/submissions/${s.from}`}>submission #{s.from}</Link>)
          </>
        )}
        : {setupText(s)}
        {s.mode === "sim" && withHarness ? ", with the grader's harness" : ""}. The grader mixes a secret into its seeds, so
        this run's random draws are not the graded run's.
      </p>
      {s.churn && (
        <p data-testid="grader-setup-churn">
          The grader's churn scenario ({s.churn}) stays with your instructors: this run has no churn unless you choose one.
        </p>
      )}
    </div>
  );
}
