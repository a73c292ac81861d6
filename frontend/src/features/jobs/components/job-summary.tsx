import { Link } from "react-router";
import { StateBadge } from "@/components/ui/state-badge";
import { formatDateTime } from "@/lib/format";
import type { Job } from "@/types/api";
import { isTerminal } from "../api/get-job";
import { SimBadge, SimProgress } from "./sim-status";
import { StopButton } from "./stop-button";

export function JobSummary({ job }: { job: Job }) {
  const syntaxError = job.state === "FAILED" && job.error_line !== null && job.error_line !== undefined;
  return (
    <section className="job-summary card" aria-label="Job">
      <div className="job-title-row">
        <h1>
          <span className="muted">#{job.id}</span> {job.name || job.filename}
        </h1>
        <SimBadge job={job} testId="job-sim-badge" />
        <StateBadge state={job.state} testId="job-state" />
        {!isTerminal(job) && <StopButton jobId={job.id} />}
      </div>
      <SimProgress job={job} testId="job-sim-progress" />
      <p className={`job-reason reason-${job.state.toLowerCase()}`} data-testid="job-reason">
        {job.reason ?? ""}
      </p>
      {syntaxError && (
        <p>
          <Link to={`/?job=${job.id}`} className="show-in-editor">
            Show in editor (line {job.error_line})
          </Link>
        </p>
      )}
      <dl className="job-facts">
        <dt>Nodes</dt>
        <dd>{job.nodes}</dd>
        <dt>Duration</dt>
        <dd>{job.duration} s{job.mode === "sim" ? " (virtual)" : ""}</dd>
        <dt>Mode</dt>
        <dd data-testid="job-mode">{job.mode === "sim" ? `simulated, seed ${job.seed ?? "—"}` : "live"}</dd>
        {job.harness_of && (
          <>
            <dt>Harness</dt>
            <dd data-testid="job-harness">{job.harness_of}</dd>
          </>
        )}
        <dt>File</dt>
        <dd>{job.filename}</dd>
        <dt>Network</dt>
        <dd data-testid="job-network">{job.network ?? "lan"}</dd>
        <dt>Created</dt>
        <dd>{formatDateTime(job.created_at)}</dd>
        <dt>Started</dt>
        <dd>{formatDateTime(job.started_at)}</dd>
        <dt>Ended</dt>
        <dd>{formatDateTime(job.ended_at)}</dd>
      </dl>
    </section>
  );
}
