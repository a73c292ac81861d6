import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import { TERMINAL_JOB_STATES, type InstanceState, type Job } from "@/types/api";

export const getJob = (id: number): Promise<Job> => api.get<Job>(`/api/jobs/${id}/`);

export const jobQueryKey = (id: number) => ["jobs", "detail", id] as const;

export const isTerminal = (job: Pick<Job, "state"> | undefined) =>
  job !== undefined && TERMINAL_JOB_STATES.includes(job.state);

const ACTIVE_INSTANCE_STATES: readonly InstanceState[] = ["RESERVED", "RUNNING", "LEFT"];

/** Nothing on the page can change any more: the job is terminal and so is every instance. A
 * stopped job is KILLED at once while its daemons end its nodes a moment later, so the page
 * keeps refreshing until those settle too (the push after the stop task is the fast path). */
export const isSettled = (job: Pick<Job, "state" | "instances"> | undefined) =>
  isTerminal(job) && !(job?.instances ?? []).some((i) => ACTIVE_INSTANCE_STATES.includes(i.state));

export const jobQueryOptions = (id: number) =>
  queryOptions({
    queryKey: jobQueryKey(id),
    queryFn: () => getJob(id),
    // The websocket pushes job.state; polling until settled also refreshes the instances.
    refetchInterval: (query) => (isSettled(query.state.data) ? false : 3000),
  });

export const useJob = (id: number | undefined) =>
  useQuery({ ...jobQueryOptions(id ?? 0), enabled: id !== undefined && Number.isFinite(id) });
