import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import type { SubmissionDetail } from "@/types/grading";
import { submissionQueryKey } from "./get-submission";

/** Instructors and TAs: grade the same source again (the current result goes to its history). */
export const regradeSubmission = (id: number): Promise<SubmissionDetail> =>
  api.post<SubmissionDetail>(`/api/submissions/${id}/regrade/`);

export const useRegradeSubmission = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: regradeSubmission,
    onSuccess: (submission) => queryClient.setQueryData(submissionQueryKey(submission.id), submission),
  });
};
