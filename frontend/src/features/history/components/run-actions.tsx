import { useState, type FormEvent } from "react";
import "./history.css";
import { useNavigate } from "react-router";
import { ErrorMessage } from "@/components/ui/error-message";
import type { Job } from "@/types/api";
import { useRenameRun, useRerun } from "../api/runs";

/** A run in the history: name it (its owner), run it again with the same code and settings. */
export function RunActions({ job, mine }: { job: Job; mine: boolean }) {
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(job.name);
  const rename = useRenameRun(job.id);
  const rerun = useRerun(job.id);
  const navigate = useNavigate();

  const save = (event: FormEvent) => {
    event.preventDefault();
    rename.mutate(name, { onSuccess: () => setEditing(false) });
  };
  return (
    <div className="run-actions">
      {mine && !editing && (
        <button type="button" data-testid="run-rename" onClick={() => { setName(job.name); setEditing(true); }}>
          Rename
        </button>
      )}
      {editing && (
        <form onSubmit={save} className="run-rename-form">
          <input aria-label="Run name" data-testid="run-name-input" value={name} maxLength={200} autoFocus
            onChange={(e) => setName(e.target.value)} />
          <button type="submit" data-testid="run-name-save" disabled={rename.isPending}>Save</button>
          <button type="button" onClick={() => setEditing(false)}>Cancel</button>
        </form>
      )}
      <button type="button" data-testid="run-again" disabled={rerun.isPending}
        title="A new job with this run's code and every setting (nodes, duration, network, churn, mode, seed, trace)"
        onClick={() => rerun.mutate(undefined, { onSuccess: (next) => navigate(`/jobs/${next.id}`) })}>
        {rerun.isPending ? "Starting…" : "↻ Run again"}
      </button>
      {rename.isError && <ErrorMessage error={rename.error} title="Not renamed." />}
      {rerun.isError && <ErrorMessage error={rerun.error} title="Cannot run it again." />}
    </div>
  );
}
