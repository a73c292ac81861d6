import { Link, useParams, useSearchParams } from "react-router";
import { ErrorMessage } from "@/components/ui/error-message";
import { Spinner } from "@/components/ui/spinner";
import { useMe } from "@/features/auth/api/get-me";
import { useCourse } from "@/features/courses/api/get-course";
import { isCourseStaff } from "@/features/courses/lib/roles";
import { useAssignment } from "@/features/grading/api/get-assignment";
import { ClassResults } from "@/features/grading/components/class-results";
import { GraderSetupNote } from "@/features/grading/components/grader-setup-note";
import { HandoutPanel } from "@/features/grading/components/handout-panel";
import { SubmissionList } from "@/features/grading/components/submission-list";
import { SubmitPanel } from "@/features/grading/components/submit-panel";
import { parseGraderSetup } from "@/features/grading/lib/run-setup";
import { useJobs } from "@/features/jobs/api/get-jobs";
import { RunBar } from "@/features/jobs/components/run-bar";
import { latestOwnJob } from "@/features/jobs/lib/job-order";
import { WorkspaceEditor } from "@/features/workspace/components/workspace-editor";
import { MAIN_FILE, useWorkspaceFile } from "@/features/workspace/hooks/use-workspace-file";
import { positiveId } from "@/lib/ids";
import type { AssignmentDetail } from "@/types/grading";

/** The workspace holding a user's code for one assignment: one per assignment and user,
 * started from the assignment's starter the first time it is opened. */
export const assignmentWorkspaceName = (courseId: number, slug: string) => `course-${courseId}/${slug}`.slice(0, 100);

/** The IDE of an assignment: the handout beside the editor, Submit, and the submissions. */
export function AssignmentRoute() {
  const params = useParams();
  const courseId = positiveId(params.courseId);
  const slug = params.slug ?? "";
  if (courseId === undefined) return <ErrorMessage error={new Error(`"${params.courseId}" is not a course id.`)} />;
  // A new assignment is a new editor (its own text, save state and undo history).
  return <AssignmentIde key={`${courseId}/${slug}`} courseId={courseId} slug={slug} />;
}

function AssignmentIde({ courseId, slug }: { courseId: number; slug: string }) {
  const course = useCourse(courseId);
  const assignment = useAssignment(courseId, slug);

  if (assignment.isPending) return <Spinner label="Loading assignment…" />;
  if (assignment.isError) {
    return (
      <div className="narrow">
        <ErrorMessage error={assignment.error} title="Cannot load this assignment." />
        <Link to={`/courses/${courseId}`}>Back to the course</Link>
      </div>
    );
  }
  const staff = isCourseStaff(course.data);
  return (
    <div className="assignment-page">
      <div className="assignment-head">
        <nav className="breadcrumbs muted" aria-label="Breadcrumbs">
          <Link to="/courses">Courses</Link> › <Link to={`/courses/${courseId}`}>{course.data?.name ?? "Course"}</Link> ›
        </nav>
        <h1 data-testid="assignment-title">{assignment.data.title}</h1>
        {staff && !assignment.data.published && <span className="hidden-badge">not published</span>}
        {course.data?.role === "instructor" && (
          <Link to={`/courses/${courseId}/assignments/${encodeURIComponent(slug)}/edit`} data-testid="assignment-edit-link">
            Edit assignment
          </Link>
        )}
      </div>
      <HandoutPanel assignment={assignment.data} />
      <AssignmentEditor courseId={courseId} assignment={assignment.data} />
      <aside className="assignment-side">
        {staff && <ClassResults courseId={courseId} slug={slug} />}
        <SubmissionList courseId={courseId} slug={slug} title={staff ? "Submissions (everyone's)" : "Your submissions"} showStudent={staff} />
      </aside>
    </div>
  );
}

function AssignmentEditor({ courseId, assignment }: { courseId: number; assignment: AssignmentDetail }) {
  const file = useWorkspaceFile({
    name: assignmentWorkspaceName(courseId, assignment.slug),
    files: [{ path: MAIN_FILE, content: assignment.starter }],
  });
  const me = useMe();
  const jobs = useJobs();
  // A report's "Run the grader's setup" opens the run bar with that run's settings (?setup=...).
  const [search] = useSearchParams();
  const parsed = parseGraderSetup(search);
  const setup = parsed && "setup" in parsed ? parsed.setup : null;
  const hasHarness = assignment.harness.trim() !== "";
  return (
    <div className="assignment-main">
      <WorkspaceEditor file={file} errorJob={latestOwnJob(jobs.data, me.data)} explicitJob={false} />
      <SubmitPanel courseId={courseId} slug={assignment.slug} getSource={() => file.code} beforeSubmit={file.save} />
      <details className="assignment-run" open={parsed !== null} data-testid="assignment-run">
        <summary>Run it yourself</summary>
        <GraderSetupNote parsed={parsed} withHarness={hasHarness} />
        <RunBar key={setup ? search.toString() : ""} getCode={() => file.code} filename={file.filename} beforeRun={file.save}
          harnessOf={hasHarness ? { id: assignment.id, title: assignment.title } : undefined}
          initial={setup ? { mode: setup.mode, nodes: setup.nodes, duration: setup.time, net: setup.net ?? undefined,
            seed: setup.seed, withHarness: setup.mode === "sim" && hasHarness } : undefined} />
      </details>
    </div>
  );
}
