import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import { assignmentUrl } from "./get-assignment";
import { submissionsQueryKey } from "./get-submissions";

/** Instructors and TAs: grade every submission of the assignment again (after a spec change). */
export const regradeAssignment = (courseId: number, slug: string): Promise<{ queued: number }> =>
  api.post<{ queued: number }>(`${assignmentUrl(courseId, slug)}regrade/`);

export const useRegradeAssignment = (courseId: number) => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (slug: string) => regradeAssignment(courseId, slug),
    onSuccess: (_, slug) => void queryClient.invalidateQueries({ queryKey: submissionsQueryKey(courseId, slug) }),
  });
};
