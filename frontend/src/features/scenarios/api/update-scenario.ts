import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import type { Scenario, ScenarioInput } from "@/types/api";
import { upsertScenario } from "../lib/scenario-draft";
import { scenariosQueryKey } from "./get-scenarios";

export const updateScenario = ({ id, ...input }: ScenarioInput & { id: number }): Promise<Scenario> =>
  api.put<Scenario>(`/api/scenarios/${id}/`, input);

export const useUpdateScenario = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateScenario,
    onSuccess: (scenario) => {
      queryClient.setQueryData<Scenario[]>(scenariosQueryKey, (list) => upsertScenario(list, scenario));
      void queryClient.invalidateQueries({ queryKey: scenariosQueryKey });
    },
  });
};
