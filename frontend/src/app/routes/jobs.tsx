import { JobList } from "@/features/jobs/components/job-list";

export function JobsRoute() {
  return (
    <div className="narrow">
      <JobList title="Jobs" />
    </div>
  );
}
