import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import type { Course } from "@/types/grading";
import type { RetentionInput } from "../lib/retention";

/** Instructors: PATCH the course's retention (400 names a bad field, 403 for others). */
export const updateCourseRetention = (courseId: number, input: RetentionInput): Promise<Course> =>
  api.patch<Course>(`/api/courses/${courseId}/`, input);

export const useUpdateCourseRetention = (courseId: number) => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: RetentionInput) => updateCourseRetention(courseId, input),
    // the course query's key (features/courses/api/get-course.ts); features never import each other
    onSuccess: (course) => queryClient.setQueryData(["courses", "detail", courseId], course),
  });
};
