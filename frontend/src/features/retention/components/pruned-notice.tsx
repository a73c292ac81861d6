import { useJobRetention } from "../api/get-job-retention";

/** Above the log: why the job's logs, metrics or traces are gone (nothing when nothing was
 * pruned). Shares the Data card's query. */
export function PrunedNotice({ jobId, ended }: { jobId: number; ended: boolean }) {
  const retention = useJobRetention(jobId, ended);
  const note = retention.data?.pruned_note;
  if (!note) return null;
  return (
    <p className="retention-note" role="note" data-testid="log-pruned-note">
      {note}
    </p>
  );
}
