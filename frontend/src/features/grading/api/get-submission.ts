import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import type { SubmissionDetail } from "@/types/grading";
import { submissionPollMs } from "../lib/push";

export const getSubmission = (id: number): Promise<SubmissionDetail> => api.get<SubmissionDetail>(`/api/submissions/${id}/`);

export const submissionQueryKey = (id: number) => ["submissions", id] as const;

export const submissionQueryOptions = (id: number) =>
  queryOptions({
    queryKey: submissionQueryKey(id),
    queryFn: () => getSubmission(id),
    // Polled until graded (or failed); slowly while the server pushes its changes (lib/push.ts).
    refetchInterval: (query) => submissionPollMs(query.state.data),
    staleTime: 0,
  });

export const useSubmission = (id: number | undefined) =>
  useQuery({ ...submissionQueryOptions(id ?? 0), enabled: id !== undefined && Number.isInteger(id) && id > 0 });
