import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import type { Blacklist, BlacklistEntry } from "@/types/daemons";

export const blacklistQueryKey = ["daemons", "blacklist"] as const;

export const getBlacklist = (): Promise<Blacklist> => api.get<Blacklist>("/api/daemons/blacklist/");

export const blacklistQueryOptions = () => queryOptions({ queryKey: blacklistQueryKey, queryFn: getBlacklist });

export const useBlacklist = () => useQuery(blacklistQueryOptions());

/** 201 with the entry as stored (a CIDR's host bits cleared); 400 {address: [why]}. */
export const addBlacklistEntry = (input: { address: string; note: string }): Promise<BlacklistEntry> =>
  api.post<BlacklistEntry>("/api/daemons/blacklist/", input);

export const removeBlacklistEntry = (id: number): Promise<null> => api.delete<null>(`/api/daemons/blacklist/${id}/`);

const useBlacklistMutation = <I, O>(fn: (input: I) => Promise<O>) => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: blacklistQueryKey }),
  });
};

export const useAddBlacklistEntry = () => useBlacklistMutation(addBlacklistEntry);
export const useRemoveBlacklistEntry = () => useBlacklistMutation(removeBlacklistEntry);
