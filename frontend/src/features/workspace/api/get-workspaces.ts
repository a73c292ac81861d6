import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import { listItems, type ListResponse, type WorkspaceSummary } from "@/types/api";

export const getWorkspaces = async (): Promise<WorkspaceSummary[]> =>
  listItems(await api.get<ListResponse<WorkspaceSummary>>("/api/workspaces/"));

export const workspacesQueryOptions = () =>
  queryOptions({ queryKey: ["workspaces"], queryFn: getWorkspaces, staleTime: Infinity });

export const useWorkspaces = (enabled = true) => useQuery({ ...workspacesQueryOptions(), enabled });
