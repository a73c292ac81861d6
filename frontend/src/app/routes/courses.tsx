import { useNavigate } from "react-router";
import { CourseList } from "@/features/courses/components/course-list";
import { JoinCourseForm } from "@/features/courses/components/join-course-form";

/** The user's courses, and joining one with the code an instructor gave. */
export function CoursesRoute() {
  const navigate = useNavigate();
  return (
    <div className="narrow">
      <h1>Courses</h1>
      <CourseList />
      <JoinCourseForm onJoined={(course) => navigate(`/courses/${course.id}`)} />
    </div>
  );
}
