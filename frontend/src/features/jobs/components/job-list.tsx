import { Link } from "react-router";
import { ErrorMessage } from "@/components/ui/error-message";
import { Spinner } from "@/components/ui/spinner";
import { StateBadge } from "@/components/ui/state-badge";
import { formatDateTime } from "@/lib/format";
import { useJobs } from "../api/get-jobs";
import { SimBadge, SimProgress } from "./sim-status";

interface JobListProps {
  limit?: number;
  title?: string;
}

export function JobList({ limit, title = "Recent jobs" }: JobListProps) {
  const jobsQuery = useJobs();
  const jobs = limit ? jobsQuery.data?.slice(0, limit) : jobsQuery.data;

  return (
    <section className="job-list card" aria-label={title}>
      <h2>{title}</h2>
      {jobsQuery.isPending && <Spinner />}
      {jobsQuery.isError && <ErrorMessage error={jobsQuery.error} title="Cannot load jobs." />}
      <ul data-testid="job-list">
        {jobs?.map((job) => (
          <li key={job.id} data-testid="job-list-item" data-job-id={job.id} data-state={job.state}>
            <Link to={`/jobs/${job.id}`} className="job-link">
              <span className="job-id">#{job.id}</span>
              <span className="job-name">{job.name || job.filename}</span>
              <SimBadge job={job} testId="job-list-sim" />
              <StateBadge state={job.state} />
            </Link>
            <div className="job-meta muted">
              {job.nodes} nodes · {job.duration} {job.mode === "sim" ? "virtual s" : "s"} · {formatDateTime(job.created_at)}
            </div>
            <SimProgress job={job} testId="job-list-progress" />
          </li>
        ))}
      </ul>
      {jobs?.length === 0 && <p className="muted">No jobs yet. Press Run to start one.</p>}
    </section>
  );
}
