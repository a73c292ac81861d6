import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import { TERMINAL_JOB_STATES, type Job } from "@/types/api";

export const getJob = (id: number): Promise<Job> => api.get<Job>(`/api/jobs/${id}/`);

export const jobQueryKey = (id: number) => ["jobs", "detail", id] as const;

export const isTerminal = (job: Pick<Job, "state"> | undefined) =>
  job !== undefined && TERMINAL_JOB_STATES.includes(job.state);

export const jobQueryOptions = (id: number) =>
  queryOptions({
    queryKey: jobQueryKey(id),
    queryFn: () => getJob(id),
    // The websocket pushes job.state; polling while active also refreshes the instances.
    refetchInterval: (query) => (isTerminal(query.state.data) ? false : 3000),
  });

export const useJob = (id: number | undefined) =>
  useQuery({ ...jobQueryOptions(id ?? 0), enabled: id !== undefined && Number.isFinite(id) });
