import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import type { Submission, SubmissionDetail } from "@/types/grading";
import { assignmentUrl } from "./get-assignment";
import { submissionQueryKey } from "./get-submission";
import { submissionsQueryKey } from "./get-submissions";

/** 201: queued for grading. 429: over the rate limit (the detail says when the next one is
 * allowed); 403: submissions closed (deadline + late days); 400: empty or too large. */
export const createSubmission = (courseId: number, slug: string, source: string): Promise<SubmissionDetail> =>
  api.post<SubmissionDetail>(`${assignmentUrl(courseId, slug)}submissions/`, { source });

export const useCreateSubmission = (courseId: number, slug: string) => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (source: string) => createSubmission(courseId, slug, source),
    onSuccess: (submission) => {
      queryClient.setQueryData(submissionQueryKey(submission.id), submission);
      queryClient.setQueryData<Submission[]>(submissionsQueryKey(courseId, slug), (list) =>
        list ? [submission, ...list.filter((s) => s.id !== submission.id)] : [submission],
      );
      void queryClient.invalidateQueries({ queryKey: submissionsQueryKey(courseId, slug) });
    },
  });
};
