import type { RunMode } from "@/types/api";

interface RunButtonProps {
  busy: boolean;
  /** The editor's file is still coming from the server. */
  loading: boolean;
  mode: RunMode;
}

/** The run bar's submit button. While the file loads, Run has nothing to send: pressing it used to
 * do nothing at all, so it says "Loading…" and is disabled until the file is there. */
export function RunButton({ busy, loading, mode }: RunButtonProps) {
  return (
    <button type="submit" className="primary" data-testid="run-button" disabled={busy || loading}
      title={loading ? "The file is still loading" : undefined}>
      {busy ? "Starting…" : loading ? "Loading…" : mode === "sim" ? "▶ Simulate" : "▶ Run"}
    </button>
  );
}
