import { useState } from "react";
import { formatVirtualTime } from "@/lib/format";
import type { ReportRun } from "@/types/grading";
import { LEVEL_LABEL, logsSummary } from "../lib/run-logs";

/** A run's log lines kept in the report, collapsed; drawn like the job page's log once opened. */
export function ReportRunLogs({ run }: { run: ReportRun }) {
  const [open, setOpen] = useState(false);
  const logs = run.logs;
  if (!logs) return null;
  const clock = run.mode === "sim" ? "virtual time since the run's start" : "time since the run's start";
  return (
    <details className="report-run-logs" data-testid="report-run-logs" data-run={run.name} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>
        Logs of run {run.name} <span className="muted">({logsSummary(logs)})</span>
      </summary>
      {open && (
        <div className="log-scroll report-log-scroll" role="log" aria-label={`Logs of run ${run.name}`}>
          {logs.lines.length === 0 && <div className="log-empty">This run wrote no log line.</div>}
          {logs.lines.map(([t, node, level, text], i) => (
            <div key={i} className={`log-line level-${level}`} data-testid="log-line" data-node={node} data-level={level}>
              <span className="log-node" title={`node ${node}`}>
                n{node}
              </span>
              <span className="log-time" title={clock}>
                {formatVirtualTime(t)}
              </span>
              <span className="log-level">{LEVEL_LABEL[level] ?? level}</span>
              <span className="log-text">{text}</span>
            </div>
          ))}
        </div>
      )}
    </details>
  );
}
