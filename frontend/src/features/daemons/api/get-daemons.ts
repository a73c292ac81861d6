import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import { listItems, type ListResponse } from "@/types/api";
import type { Daemon } from "@/types/daemons";

/** The dashboard's live refresh: heartbeats come every 2 s, so poll as often. */
export const DAEMONS_REFETCH_MS = 2500;

export const getDaemons = async (): Promise<Daemon[]> => listItems(await api.get<ListResponse<Daemon>>("/api/daemons/"));

export const daemonsQueryKey = ["daemons", "list"] as const;

export const daemonsQueryOptions = () =>
  queryOptions({ queryKey: daemonsQueryKey, queryFn: getDaemons, refetchInterval: DAEMONS_REFETCH_MS, staleTime: 0 });

export const useDaemons = (enabled = true) => useQuery({ ...daemonsQueryOptions(), enabled });
