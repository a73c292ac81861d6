import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import { listItems, type ListResponse, type Scenario } from "@/types/api";

export const getScenarioChoices = async (): Promise<Scenario[]> =>
  listItems(await api.get<ListResponse<Scenario>>("/api/scenarios/"));

/** The key features/scenarios uses for the same list (features do not import each other): one
 * cache for one resource, so a scenario saved on the Scenarios page is offered here at once. */
export const scenarioChoicesQueryKey = ["scenarios", "list"] as const;

export const useScenarioChoices = () =>
  useQuery(queryOptions({ queryKey: scenarioChoicesQueryKey, queryFn: getScenarioChoices }));
