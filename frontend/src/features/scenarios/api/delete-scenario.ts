import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import type { Scenario } from "@/types/api";
import { scenariosQueryKey } from "./get-scenarios";

export const deleteScenario = (id: number): Promise<null> => api.delete<null>(`/api/scenarios/${id}/`);

export const useDeleteScenario = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteScenario,
    onSuccess: (_, id) => {
      queryClient.setQueryData<Scenario[]>(scenariosQueryKey, (list) => list?.filter((s) => s.id !== id));
      void queryClient.invalidateQueries({ queryKey: scenariosQueryKey });
    },
  });
};
