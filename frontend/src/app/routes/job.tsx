import { Link, useParams } from "react-router";
import { ErrorMessage } from "@/components/ui/error-message";
import { Spinner } from "@/components/ui/spinner";
import { useMe } from "@/features/auth/api/get-me";
import { ChurnPanel } from "@/features/churn/components/churn-panel";
import { isTerminal, useJob } from "@/features/jobs/api/get-job";
import { InstancesTable } from "@/features/jobs/components/instances-table";
import { JobSummary } from "@/features/jobs/components/job-summary";
import { useJobSocket } from "@/features/jobs/hooks/use-job-socket";
import { LogPanel } from "@/features/logs/components/log-panel";
import { MetricsPanel } from "@/features/metrics/components/metrics-panel";
import { useMetricStream } from "@/features/metrics/hooks/use-metric-stream";
import { CodeCompare } from "@/features/history/components/code-compare";
import { RunActions } from "@/features/history/components/run-actions";
import { useRuns } from "@/features/history/api/runs";
import { otherRuns, runLabel as historyLabel } from "@/features/history/lib/run-label";
import { TracePanel } from "@/features/trace/components/trace-panel";
import { JobRetentionPanel } from "@/features/retention/components/job-retention-panel";
import { PrunedNotice } from "@/features/retention/components/pruned-notice";
import type { Job } from "@/types/api";

/** How plots name a run (the same form as the label of `/api/jobs/<id>/metrics/`). */
const runLabel = (job: Job) => `job #${job.id} · code ${job.code_version ?? "?"} · ${job.network || "lan"}`;

/** With a churn scenario, metric time series count from its start, as the population plot
 * does, so that both share one x axis (seconds since the scenario start). */
const timeOrigin = (job: Job) =>
  job.churn?.epoch != null ? { t: job.churn.epoch, label: "the scenario start" } : null;

/** A simulated job runs on a virtual clock counted from its start: where it got to, and that start. */
const isSimulatedJob = (job: Job) => job.mode === "sim";
const virtualReached = (job: Job) =>
  isSimulatedJob(job) && job.progress && "virtual_t" in job.progress ? job.progress.virtual_t : null;
const virtualOrigin = (job: Job) =>
  isSimulatedJob(job) && job.started_at ? Date.parse(job.started_at) / 1000 : null;

export function JobRoute() {
  const params = useParams();
  const jobId = Number(params.id);
  const valid = Number.isInteger(jobId) && jobId > 0;
  const jobQuery = useJob(valid ? jobId : undefined);
  useJobSocket(valid ? jobId : undefined);
  const metrics = useMetricStream(valid ? jobId : undefined);
  const me = useMe();
  const runs = useRuns();

  if (!valid) return <ErrorMessage error={new Error(`"${params.id}" is not a job id.`)} />;
  if (jobQuery.isPending) return <Spinner label="Loading job…" />;
  if (jobQuery.isError) {
    return (
      <div className="narrow">
        <ErrorMessage error={jobQuery.error} title={`Cannot load job #${jobId}.`} />
        <Link to="/">Back to the workspace</Link>
      </div>
    );
  }

  const job = jobQuery.data;
  return (
    <div className="job-page">
      <div className="job-side">
        <JobSummary job={job} />
        <RunActions job={job} mine={me.data?.username === job.owner} />
        <InstancesTable instances={job.instances} />
        <JobRetentionPanel jobId={job.id} ended={isTerminal(job)} />
      </div>
      <div className="job-main">
        {job.churn && <ChurnPanel jobId={job.id} churn={job.churn} endedAt={job.ended_at} active={!isTerminal(job)}
          virtualT={virtualReached(job)} />}
        <MetricsPanel store={metrics.store} version={metrics.version} history={metrics.history}
          jobId={job.id} nodeCount={job.nodes} runLabel={runLabel(job)} timeOrigin={timeOrigin(job)}
          runChoices={otherRuns(runs.data, job.id).map((r) => ({ id: r.id, label: historyLabel(r) }))} />
        <PrunedNotice jobId={job.id} ended={isTerminal(job)} />
        <LogPanel jobId={job.id} nodeCount={job.nodes} finished={isTerminal(job)} virtualOrigin={virtualOrigin(job)} />
        <TracePanel jobId={job.id} nodeCount={job.nodes} simulated={isSimulatedJob(job)} finished={isTerminal(job)} />
        <CodeCompare job={job} />
      </div>
    </div>
  );
}
