import { ErrorMessage } from "@/components/ui/error-message";
import { formatDateTime } from "@/lib/format";
import { useJobRetention } from "../api/get-job-retention";
import { useSetJobKeep } from "../api/set-job-keep";
import { formatBytes, policySentence } from "../lib/retention";

/** The job page's "Data" card: the archive link, when retention prunes the job's logs, metrics
 * and traces (or why they are gone), what it stores, and "keep" for the course's staff. */
export function JobRetentionPanel({ jobId, ended }: { jobId: number; ended: boolean }) {
  const retention = useJobRetention(jobId, ended);
  const keep = useSetJobKeep(jobId);
  const r = retention.data;
  const rule = r ? `${policySentence(r.days, r.max_mb)}: ${r.policy_source}` : "";

  return (
    <section className="card job-retention" aria-label="Data and retention">
      <h2>Data</h2>
      <p>
        <a href={`/api/jobs/${jobId}/archive/`} download={`job-${jobId}.zip`} data-testid="job-archive-link">
          Download archive
        </a>{" "}
        <span className="muted">(.zip: code, logs, metrics, trace)</span>
      </p>
      {retention.isError && <ErrorMessage error={retention.error} title="Cannot load the retention." />}
      {r && r.pruned_note && (
        <p className="retention-note" role="note" data-testid="job-pruned-note">
          {r.pruned_note}
        </p>
      )}
      {r && !r.pruned_note && (
        <p className="muted" data-testid="job-prune-after">
          {r.keep
            ? "Kept by the course staff: never pruned."
            : r.prune_after
              ? `Logs, metrics and traces are kept until ${formatDateTime(r.prune_after)} (${rule}).`
              : ended
                ? `Not pruned by age (${rule}).`
                : `Once the job ends: ${rule}.`}
        </p>
      )}
      {r && r.pruned_note && !r.keep && r.prune_after && (
        <p className="muted" data-testid="job-prune-after">
          What is left is kept until {formatDateTime(r.prune_after)}.
        </p>
      )}
      {r?.measured_at && (
        <p className="muted" data-testid="job-stored">
          Stored: logs {formatBytes(r.log_bytes)}, metrics {formatBytes(r.metric_bytes)}, trace{" "}
          {formatBytes(r.trace_bytes)} (measured {formatDateTime(r.measured_at)}).
        </p>
      )}
      {r?.may_keep && (
        <label className="retention-keep">
          <input
            type="checkbox"
            data-testid="job-keep"
            checked={r.keep}
            disabled={keep.isPending}
            onChange={(e) => keep.mutate(e.target.checked)}
          />{" "}
          Keep this job (no retention rule prunes it)
        </label>
      )}
      {keep.isError && <ErrorMessage error={keep.error} />}
    </section>
  );
}
