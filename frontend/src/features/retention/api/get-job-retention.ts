import { useQuery } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import type { JobRetention } from "@/types/api";

export const getJobRetention = (jobId: number): Promise<JobRetention> =>
  api.get<JobRetention>(`/api/jobs/${jobId}/retention/`);

export const jobRetentionQueryKey = (jobId: number) => ["jobs", "retention", jobId] as const;

/** Refetched when the job ends (the prune date is known only then). */
export const useJobRetention = (jobId: number, ended: boolean) =>
  useQuery({ queryKey: [...jobRetentionQueryKey(jobId), ended], queryFn: () => getJobRetention(jobId), staleTime: 60_000 });
