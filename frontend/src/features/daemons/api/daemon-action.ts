import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import type { Daemon, DaemonWithKey } from "@/types/daemons";
import { daemonsQueryKey } from "./get-daemons";

export type DaemonAction = "revoke" | "drain" | "undrain";

/** POST /api/daemons/<id>/<action>/ → the daemon as it is now. */
export const daemonAction = ({ id, action }: { id: number; action: DaemonAction }): Promise<Daemon> =>
  api.post<Daemon>(`/api/daemons/${id}/${action}/`);

/** POST /api/daemons/<id>/rotate-key/ → {daemon, key, config}: the new key, shown this once. */
export const rotateDaemonKey = (id: number): Promise<DaemonWithKey> => api.post<DaemonWithKey>(`/api/daemons/${id}/rotate-key/`);

export const useDaemonAction = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: daemonAction,
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: daemonsQueryKey }),
  });
};

export const useRotateDaemonKey = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: rotateDaemonKey,
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: daemonsQueryKey }),
  });
};
