import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import { listItems, type ListResponse, type Scenario } from "@/types/api";

export const getScenarios = async (): Promise<Scenario[]> =>
  listItems(await api.get<ListResponse<Scenario>>("/api/scenarios/"));

export const scenariosQueryKey = ["scenarios", "list"] as const;

export const scenariosQueryOptions = () => queryOptions({ queryKey: scenariosQueryKey, queryFn: getScenarios });

export const useScenarios = () => useQuery(scenariosQueryOptions());
