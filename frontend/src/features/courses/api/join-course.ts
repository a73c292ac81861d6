import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import type { Course } from "@/types/grading";
import { courseQueryKey } from "./get-course";
import { coursesQueryKey } from "./get-courses";

/** 201: enrolled as a student; 200: already a member (role unchanged); 400: no such code. */
export const joinCourse = (code: string): Promise<Course> => api.post<Course>("/api/courses/join", { code });

export const useJoinCourse = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: joinCourse,
    onSuccess: (course) => {
      queryClient.setQueryData(courseQueryKey(course.id), course);
      void queryClient.invalidateQueries({ queryKey: coursesQueryKey });
    },
  });
};
