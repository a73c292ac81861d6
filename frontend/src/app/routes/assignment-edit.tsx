import { Link, useParams } from "react-router";
import { ErrorMessage } from "@/components/ui/error-message";
import { Spinner } from "@/components/ui/spinner";
import { useCourse } from "@/features/courses/api/get-course";
import { useAssignment } from "@/features/grading/api/get-assignment";
import { AssignmentEditor } from "@/features/grading/components/assignment-editor";
import { positiveId } from "@/lib/ids";

/** Instructors edit an assignment (PATCH …/assignments/<slug>/ is theirs only: TAs and students get a note). */
export function AssignmentEditRoute() {
  const params = useParams();
  const courseId = positiveId(params.courseId);
  const slug = params.slug ?? "";
  if (courseId === undefined) return <ErrorMessage error={new Error(`"${params.courseId}" is not a course id.`)} />;
  // A new assignment is a new draft.
  return <AssignmentEditPage key={`${courseId}/${slug}`} courseId={courseId} slug={slug} />;
}

function AssignmentEditPage({ courseId, slug }: { courseId: number; slug: string }) {
  const course = useCourse(courseId);
  const assignment = useAssignment(courseId, slug);
  const ideUrl = `/courses/${courseId}/assignments/${encodeURIComponent(slug)}`;
  const failed = course.error ?? assignment.error;

  const [role, data] = [course.data?.role, assignment.data];
  let body;
  if (failed) body = <ErrorMessage error={failed} title="Cannot load this assignment." />;
  else if (!role || !data) body = <Spinner label="Loading assignment…" />;
  else if (role !== "instructor") {
    body = (
      <p className="muted" data-testid="edit-not-allowed">
        Only the course's instructors edit assignments. <Link to={ideUrl}>Open the assignment</Link>
      </p>
    );
  } else {
    body = (
      <>
        <h1>Edit “{data.title}”</h1>
        <AssignmentEditor courseId={courseId} assignment={data} />
      </>
    );
  }
  return (
    <div className="assignment-edit-page">
      <nav className="breadcrumbs muted" aria-label="Breadcrumbs">
        <Link to="/courses">Courses</Link> › <Link to={`/courses/${courseId}`}>{course.data?.name ?? "Course"}</Link> ›{" "}
        <Link to={ideUrl}>{assignment.data?.title ?? slug}</Link> ›
      </nav>
      {body}
    </div>
  );
}
