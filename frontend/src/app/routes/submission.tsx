import { Link, useParams } from "react-router";
import { ErrorMessage } from "@/components/ui/error-message";
import { Spinner } from "@/components/ui/spinner";
import { useCourse } from "@/features/courses/api/get-course";
import { isCourseStaff } from "@/features/courses/lib/roles";
import { useSubmission } from "@/features/grading/api/get-submission";
import { useSubmissionUpdates } from "@/features/grading/hooks/use-submission-updates";
import { RegradeButton } from "@/features/grading/components/regrade-button";
import { RegradeRequests } from "@/features/grading/components/regrade-requests";
import { ReportChecks } from "@/features/grading/components/report-checks";
import { ReportPlots } from "@/features/grading/components/report-plots";
import { ReportRuns } from "@/features/grading/components/report-runs";
import { ReportScore } from "@/features/grading/components/report-score";
import { ReportSource } from "@/features/grading/components/report-source";
import { isPending } from "@/features/grading/lib/report";
import { graderSetupPath } from "@/features/grading/lib/run-setup";
import { positiveId } from "@/lib/ids";

/** A submission's report: score and the final grade (the gradebook's, with an override's comment), each
 * check's result and reason (students: hidden checks left out until the deadline), the runs (their logs,
 * a link to run their setup) and their latency CDFs against the reference's; polled until graded. */
export function SubmissionRoute() {
  const params = useParams();
  const id = positiveId(params.id);
  const submission = useSubmission(id);
  useSubmissionUpdates();
  const course = useCourse(submission.data?.course);

  if (id === undefined) return <ErrorMessage error={new Error(`"${params.id}" is not a submission id.`)} />;
  if (submission.isPending) return <Spinner label="Loading submission…" />;
  if (submission.isError) {
    return (
      <div className="narrow">
        <ErrorMessage error={submission.error} title={`Cannot load submission #${id}.`} />
        <Link to="/courses">Back to your courses</Link>
      </div>
    );
  }
  const s = submission.data;
  const assignmentPath = `/courses/${s.course}/assignments/${encodeURIComponent(s.assignment)}`;
  return (
    <div className="narrow report-page">
      <nav className="breadcrumbs muted" aria-label="Breadcrumbs">
        <Link to="/courses">Courses</Link> › <Link to={`/courses/${s.course}`}>{course.data?.name ?? "Course"}</Link> ›{" "}
        <Link to={assignmentPath}>{s.assignment_title}</Link> ›
      </nav>
      <div className="job-title-row">
        <h1>Submission #{s.id}</h1>
        {isCourseStaff(course.data) && <RegradeButton submissionId={s.id} disabled={isPending(s.status)} />}
        <Link to={assignmentPath}>Back to the editor</Link>
      </div>
      <ReportScore submission={s} />
      {!isPending(s.status) && (
        <RegradeRequests submissionId={s.id} staff={isCourseStaff(course.data)} canAsk={course.data?.role === "student"} />
      )}
      <ReportChecks checks={s.report.checks ?? []} deadline={s.deadline} />
      <ReportRuns runs={s.report.runs ?? []} setupPath={(run) => graderSetupPath(assignmentPath, run, s.id)} />
      <ReportPlots plots={s.report.plots ?? []} />
      <ReportSource submission={s} />
    </div>
  );
}
