import type { Course, CourseRole } from "@/types/grading";

const ROLE_LABELS: Record<CourseRole, string> = { student: "student", ta: "TA", instructor: "instructor" };

export const roleLabel = (role: CourseRole | string): string => ROLE_LABELS[role as CourseRole] ?? role;

/** Instructors and TAs see every student's work and grades of the course (the gradebook). */
export const isCourseStaff = (course: Pick<Course, "role"> | undefined): boolean =>
  course?.role === "instructor" || course?.role === "ta";

/** The courses whose gradebook the user may open. */
export const staffCourses = (courses: Course[] | undefined): Course[] => (courses ?? []).filter(isCourseStaff);

/** What a student types is fine in any case, with spaces or dashes; "" when nothing is left. */
export const joinCodeInput = (text: string): string => text.replace(/[\s-]+/g, "").toUpperCase();
