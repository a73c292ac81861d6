import { Link } from "react-router";
import { ErrorMessage } from "@/components/ui/error-message";
import { Spinner } from "@/components/ui/spinner";
import { useCourses } from "../api/get-courses";
import { isCourseStaff, roleLabel } from "../lib/roles";

/** The user's courses, each with their role; staff also get the gradebook link and join code. */
export function CourseList() {
  const courses = useCourses();
  if (courses.isPending) return <Spinner label="Loading courses…" />;
  if (courses.isError) return <ErrorMessage error={courses.error} title="Cannot load your courses." />;
  if (courses.data.length === 0) {
    return <p className="muted">You are in no course yet: join one with the code your instructor gave you.</p>;
  }
  return (
    <ul className="course-list" data-testid="course-list">
      {courses.data.map((course) => (
        <li key={course.id} className="card course-item" data-testid="course-item" data-course-id={course.id}>
          <div className="course-item-head">
            <Link to={`/courses/${course.id}`} className="course-name">
              {course.name}
            </Link>
            <span className="role-badge">{roleLabel(course.role)}</span>
          </div>
          {isCourseStaff(course) && (
            <div className="course-item-staff">
              <Link to={`/courses/${course.id}/gradebook`}>Gradebook</Link>
              {course.join_code && (
                <span className="muted">
                  join code <code data-testid="course-join-code">{course.join_code}</code>
                </span>
              )}
            </div>
          )}
        </li>
      ))}
    </ul>
  );
}
