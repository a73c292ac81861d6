import { useState } from "react";
import { CodeDiff } from "@/components/code-editor/code-diff";
import type { Job } from "@/types/api";
import { useRunCode, useRuns } from "../api/runs";
import { otherRuns, runLabel } from "../lib/run-label";

/** This run's code beside another run's, changes marked. */
export function CodeCompare({ job }: { job: Job }) {
  const runs = useRuns();
  const [otherId, setOtherId] = useState<number | null>(null);
  const other = useRunCode(otherId);
  const choices = otherRuns(runs.data, job.id);
  return (
    <section className="code-compare card" aria-label="Code">
      <div className="code-compare-toolbar">
        <h2>Code</h2>
        <label>
          Compare with{" "}
          <select data-testid="diff-with" value={otherId ?? ""} onChange={(e) => setOtherId(e.target.value ? Number(e.target.value) : null)}>
            <option value="">choose a run…</option>
            {choices.map((r) => <option key={r.id} value={r.id}>{runLabel(r)}</option>)}
          </select>
        </label>
        {other.data && other.data.code_version === job.code_version && (
          <span className="muted" data-testid="diff-same">the same code</span>
        )}
      </div>
      {otherId !== null && other.data && (
        <CodeDiff original={other.data.code ?? ""} modified={job.code ?? ""}
          originalLabel={runLabel(other.data)} modifiedLabel={`${runLabel(job)} (this run)`} />
      )}
    </section>
  );
}
