/** The job's whole log as a file, from the server (GET /api/jobs/<id>/logs/download/): every
 * line it stored, not only those this page holds, whatever the panel's filters. A plain link
 * carries the session cookie, as the job archive's does. */
export function LogDownloads({ jobId }: { jobId: number }) {
  const href = (format: string) => `/api/jobs/${jobId}/logs/download/?format=${format}`;
  const title = "The job's whole log (every node and level) in time order";
  return (
    <span className="log-downloads">
      <a className="button" href={href("jsonl")} download={`job-${jobId}-logs.jsonl`} title={title} data-testid="log-download-jsonl">
        Download .jsonl
      </a>{" "}
      <a className="button" href={href("text")} download={`job-${jobId}-logs.txt`} title={title} data-testid="log-download-text">
        Download .txt
      </a>
    </span>
  );
}
