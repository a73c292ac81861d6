import { Link, useParams } from "react-router";
import { ErrorMessage } from "@/components/ui/error-message";
import { Spinner } from "@/components/ui/spinner";
import { useCourse } from "@/features/courses/api/get-course";
import { isCourseStaff, roleLabel } from "@/features/courses/lib/roles";
import { AssignmentList } from "@/features/grading/components/assignment-list";
import { LmsCard } from "@/features/lms/components/lms-card";
import { CourseRetentionCard } from "@/features/retention/components/course-retention-card";
import { positiveId } from "@/lib/ids";

/** A course: its assignments (students: the published ones); staff also get the gradebook and join code. */
export function CourseRoute() {
  const params = useParams();
  const courseId = positiveId(params.courseId);
  const course = useCourse(courseId);

  if (courseId === undefined) return <ErrorMessage error={new Error(`"${params.courseId}" is not a course id.`)} />;
  if (course.isPending) return <Spinner label="Loading course…" />;
  if (course.isError) {
    return (
      <div className="narrow">
        <ErrorMessage error={course.error} title="Cannot load this course." />
        <Link to="/courses">Back to your courses</Link>
      </div>
    );
  }
  const staff = isCourseStaff(course.data);
  return (
    <div className="narrow">
      <nav className="breadcrumbs muted" aria-label="Breadcrumbs">
        <Link to="/courses">Courses</Link> ›
      </nav>
      <div className="course-title-row">
        <h1 data-testid="course-name">{course.data.name}</h1>
        <span className="role-badge">{roleLabel(course.data.role)}</span>
        {staff && (
          <Link to={`/courses/${courseId}/gradebook`} data-testid="gradebook-link">
            Gradebook
          </Link>
        )}
      </div>
      {staff && course.data.join_code && (
        <p className="muted">
          Students join with the code <code data-testid="course-join-code">{course.data.join_code}</code>; late submissions
          lose {course.data.late_penalty_percent} % per day, up to {course.data.max_late_days} days.
        </p>
      )}
      <h2>Assignments</h2>
      <AssignmentList courseId={courseId} staff={staff} canPublish={course.data.role === "instructor"} />
      {staff && <CourseRetentionCard course={course.data} canEdit={course.data.role === "instructor"} />}
      {staff && <LmsCard courseId={courseId} canEdit={course.data.role === "instructor"} />}
    </div>
  );
}
