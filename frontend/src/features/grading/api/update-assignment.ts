import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import type { AssignmentDetail, AssignmentUpdateInput } from "@/types/grading";
import { assignmentQueryKey, assignmentUrl } from "./get-assignment";
import { assignmentsQueryKey } from "./get-assignments";
import { gradebookQueryKey } from "./get-gradebook";

/** PATCH (instructors): only the fields given, e.g. {published: true}, {deadline}, {spec} (the grader validates it). */
export const updateAssignment = (courseId: number, slug: string, input: AssignmentUpdateInput): Promise<AssignmentDetail> =>
  api.patch<AssignmentDetail>(assignmentUrl(courseId, slug), input);

export const useUpdateAssignment = (courseId: number) => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ slug, input }: { slug: string; input: AssignmentUpdateInput }) => updateAssignment(courseId, slug, input),
    onSuccess: (assignment) => {
      queryClient.setQueryData(assignmentQueryKey(courseId, assignment.slug), assignment);
      // The course page's list and the gradebook show the title, deadline and published state too.
      void queryClient.invalidateQueries({ queryKey: assignmentsQueryKey(courseId) });
      void queryClient.invalidateQueries({ queryKey: gradebookQueryKey(courseId) });
    },
  });
};
