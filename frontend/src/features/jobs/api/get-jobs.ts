import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import { listItems, type Job, type ListResponse } from "@/types/api";
import { sortJobsNewestFirst } from "../lib/job-order";

export const JOBS_REFETCH_MS = 3000;

export const getJobs = async (): Promise<Job[]> =>
  sortJobsNewestFirst(listItems(await api.get<ListResponse<Job>>("/api/jobs/")));

export const jobsQueryKey = ["jobs", "list"] as const;

export const jobsQueryOptions = () =>
  queryOptions({ queryKey: jobsQueryKey, queryFn: getJobs, refetchInterval: JOBS_REFETCH_MS, staleTime: 0 });

export const useJobs = () => useQuery(jobsQueryOptions());
