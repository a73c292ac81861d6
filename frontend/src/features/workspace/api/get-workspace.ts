import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import type { Workspace } from "@/types/api";

export const getWorkspace = (id: number): Promise<Workspace> => api.get<Workspace>(`/api/workspaces/${id}/`);

export const workspaceQueryKey = (id: number) => ["workspaces", id] as const;

export const workspaceQueryOptions = (id: number) =>
  // Never refetched behind the editor's back: the editor owns the text once loaded.
  queryOptions({ queryKey: workspaceQueryKey(id), queryFn: () => getWorkspace(id), staleTime: Infinity });

export const useWorkspace = (id: number | undefined) =>
  useQuery({ ...workspaceQueryOptions(id ?? 0), enabled: id !== undefined });
