import { useState, type FormEvent } from "react";
import { useNavigate } from "react-router";
import { ErrorMessage } from "@/components/ui/error-message";
import { useCreateJob } from "../api/create-job";

export const DEFAULT_NODES = 10;
export const DEFAULT_DURATION = 30;

interface RunBarProps {
  /** The code to run, read when Run is pressed. */
  getCode: () => string | null;
  filename: string;
  /** Called before submitting (e.g. flush the autosave); a failure does not block the run. */
  beforeRun?: () => Promise<void>;
}

export function RunBar({ getCode, filename, beforeRun }: RunBarProps) {
  const [nodes, setNodes] = useState(String(DEFAULT_NODES));
  const [duration, setDuration] = useState(String(DEFAULT_DURATION));
  const [preparing, setPreparing] = useState(false);
  const createJob = useCreateJob();
  const navigate = useNavigate();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const code = getCode();
    if (code === null) return;
    setPreparing(true);
    await beforeRun?.().catch(() => undefined);
    setPreparing(false);
    createJob.mutate(
      { code, filename, nodes: Number(nodes), duration: Number(duration) },
      { onSuccess: (job) => navigate(`/jobs/${job.id}`) },
    );
  };

  const busy = preparing || createJob.isPending;
  return (
    <form className="run-bar" onSubmit={submit} aria-label="Run the code">
      <label htmlFor="run-nodes">Nodes</label>
      <input
        id="run-nodes"
        data-testid="run-nodes"
        type="number"
        min={1}
        step={1}
        required
        value={nodes}
        onChange={(event) => setNodes(event.target.value)}
      />
      <label htmlFor="run-duration">Duration (s)</label>
      <input
        id="run-duration"
        data-testid="run-duration"
        type="number"
        min={1}
        step={1}
        required
        value={duration}
        onChange={(event) => setDuration(event.target.value)}
      />
      <button type="submit" className="primary" data-testid="run-button" disabled={busy}>
        {busy ? "Starting…" : "▶ Run"}
      </button>
      {createJob.isError && <ErrorMessage error={createJob.error} title="Cannot start the job." />}
    </form>
  );
}
