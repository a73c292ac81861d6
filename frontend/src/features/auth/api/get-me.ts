import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import type { User } from "@/types/api";

export const getMe = (): Promise<User> => api.get<User>("/api/auth/me/");

export const meQueryKey = ["auth", "me"] as const;

export const meQueryOptions = () =>
  queryOptions({ queryKey: meQueryKey, queryFn: getMe, staleTime: 60_000 });

export const useMe = () => useQuery(meQueryOptions());
