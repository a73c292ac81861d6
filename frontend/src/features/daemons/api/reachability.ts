import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import { listItems, type ListResponse } from "@/types/api";
import type { Reachability } from "@/types/daemons";
import { DAEMONS_REFETCH_MS } from "./get-daemons";

export const reachabilityQueryKey = ["daemons", "reachability"] as const;

export const getReachability = async (): Promise<Reachability[]> =>
  listItems(await api.get<ListResponse<Reachability>>("/api/daemons/reachability/"));

/** Polled like the daemons: a probe runs a second after each daemon's hello. */
export const reachabilityQueryOptions = () =>
  queryOptions({ queryKey: reachabilityQueryKey, queryFn: getReachability, refetchInterval: DAEMONS_REFETCH_MS });

export const useReachability = () => useQuery(reachabilityQueryOptions());

/** 202 {queued}: the daemons probe each other again, in the background. */
export const probeReachability = (): Promise<{ queued: boolean }> =>
  api.post<{ queued: boolean }>("/api/daemons/reachability/", {});

export const useProbeReachability = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: probeReachability,
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: reachabilityQueryKey }),
  });
};
