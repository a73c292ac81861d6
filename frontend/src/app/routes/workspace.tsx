import { useSearchParams } from "react-router";
import { useMe } from "@/features/auth/api/get-me";
import { useJob } from "@/features/jobs/api/get-job";
import { useJobs } from "@/features/jobs/api/get-jobs";
import { JobList } from "@/features/jobs/components/job-list";
import { RunBar } from "@/features/jobs/components/run-bar";
import { latestOwnJob } from "@/features/jobs/lib/job-order";
import { WorkspaceEditor } from "@/features/workspace/components/workspace-editor";
import { useWorkspaceFile } from "@/features/workspace/hooks/use-workspace-file";

/** The editor, the run bar and the recent jobs; the syntax error of the latest job
 * (or of ?job=<id>, from the job page's "show in editor") is marked in the editor. */
export function WorkspaceRoute() {
  const [params] = useSearchParams();
  const requested = Number(params.get("job"));
  const requestedId = Number.isInteger(requested) && requested > 0 ? requested : undefined;

  const file = useWorkspaceFile();
  const me = useMe();
  const jobs = useJobs();
  const requestedJob = useJob(requestedId);
  const errorJob = requestedId !== undefined ? (requestedJob.data ?? null) : latestOwnJob(jobs.data, me.data);

  return (
    <div className="workspace-page">
      <div className="workspace-main">
        <WorkspaceEditor file={file} errorJob={errorJob} explicitJob={requestedId !== undefined} />
        <RunBar getCode={() => file.code} filename={file.filename} beforeRun={file.save} />
      </div>
      <aside className="workspace-side">
        <JobList limit={15} />
      </aside>
    </div>
  );
}
