import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import type { JobRetention } from "@/types/api";
import { jobRetentionQueryKey } from "./get-job-retention";

/** Course staff: keep (or stop keeping) a job; 403 for anyone else. */
export const setJobKeep = (jobId: number, keep: boolean): Promise<JobRetention> =>
  api.patch<JobRetention>(`/api/jobs/${jobId}/retention/`, { keep });

export const useSetJobKeep = (jobId: number) => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (keep: boolean) => setJobKeep(jobId, keep),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: jobRetentionQueryKey(jobId) }),
  });
};
