import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import type { User } from "@/types/api";

/** The signed-in user, or null when no one is (GET /api/auth/me/ answers 204 then: an
 * anonymous visit is not an error, so /login logs none). */
export const getMe = (): Promise<User | null> => api.get<User | null>("/api/auth/me/");

export const meQueryKey = ["auth", "me"] as const;

export const meQueryOptions = () =>
  queryOptions({ queryKey: meQueryKey, queryFn: getMe, staleTime: 60_000 });

/** Who is signed in, null for no one: for the pages that decide where a visitor goes
 * (the app layout, /login). */
export const useSession = () => useQuery(meQueryOptions());

/** The signed-in user, for the pages under the app layout (which only renders them for a
 * signed-in user): the same query, no one read as not loaded. */
export const useMe = () => useQuery({ ...meQueryOptions(), select: (user) => user ?? undefined });
