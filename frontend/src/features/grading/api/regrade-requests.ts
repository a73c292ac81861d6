import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import type { RegradeRequest } from "@/types/grading";
import { submissionQueryKey } from "./get-submission";

const submissionKey = (id: number) => ["submissions", id, "regrade-requests"] as const;
const courseKey = (courseId: number) => ["courses", courseId, "regrade-requests"] as const;

/** The submission's requests: its student's own, or everyone's for the course's staff. */
export const useRegradeRequests = (submissionId: number) =>
  useQuery({
    queryKey: submissionKey(submissionId),
    queryFn: () => api.get<RegradeRequest[]>(`/api/submissions/${submissionId}/regrade-requests/`),
  });

/** Staff: the course's open requests (newest first). */
export const useOpenRegradeRequests = (courseId: number) =>
  useQuery({
    queryKey: courseKey(courseId),
    queryFn: () => api.get<RegradeRequest[]>(`/api/courses/${courseId}/regrade-requests/?state=open`),
  });

/** The submission's student: 201; 409 while one is open; 400 before the grading ends. */
export const useAskRegrade = (submissionId: number) => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (message: string) =>
      api.post<RegradeRequest>(`/api/submissions/${submissionId}/regrade-requests/`, { message }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: submissionKey(submissionId) }),
  });
};

/** Staff: the answer, and with regrade the submission graded again. */
export const useAnswerRegrade = (submissionId: number) => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, answer, regrade }: { id: number; answer: string; regrade: boolean }) =>
      api.post<RegradeRequest>(`/api/regrade-requests/${id}/answer/`, { answer, regrade }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: submissionKey(submissionId) });
      void queryClient.invalidateQueries({ queryKey: submissionQueryKey(submissionId) });
      void queryClient.invalidateQueries({ queryKey: ["courses"] });
    },
  });
};
