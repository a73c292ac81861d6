import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import type { Job } from "@/types/api";
import { jobQueryKey } from "./get-job";
import { jobsQueryKey } from "./get-jobs";

export const stopJob = (id: number): Promise<Job | null> => api.post<Job | null>(`/api/jobs/${id}/stop/`);

export const useStopJob = (id: number) => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => stopJob(id),
    onSuccess: (job) => {
      if (job && typeof job === "object" && "state" in job) queryClient.setQueryData(jobQueryKey(id), job);
      void queryClient.invalidateQueries({ queryKey: jobQueryKey(id) });
      void queryClient.invalidateQueries({ queryKey: jobsQueryKey });
    },
  });
};
