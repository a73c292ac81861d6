import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import type { Scenario, ScenarioInput } from "@/types/api";
import { upsertScenario } from "../lib/scenario-draft";
import { scenariosQueryKey } from "./get-scenarios";

export const createScenario = (input: ScenarioInput): Promise<Scenario> => api.post<Scenario>("/api/scenarios/", input);

export const useCreateScenario = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createScenario,
    onSuccess: (scenario) => {
      // in the list at once (the editor finds its saved version there), then refetched
      queryClient.setQueryData<Scenario[]>(scenariosQueryKey, (list) => upsertScenario(list, scenario));
      void queryClient.invalidateQueries({ queryKey: scenariosQueryKey });
    },
  });
};
