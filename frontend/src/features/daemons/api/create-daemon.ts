import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import type { DaemonCreateInput, DaemonWithKey } from "@/types/daemons";
import { daemonsQueryKey } from "./get-daemons";

/** 201 {daemon, key, config}: the key and its splayd.toml are shown this once. */
export const createDaemon = (input: DaemonCreateInput): Promise<DaemonWithKey> =>
  api.post<DaemonWithKey>("/api/daemons/", input);

export const useCreateDaemon = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createDaemon,
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: daemonsQueryKey }),
  });
};
