import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import { listItems, type Job, type ListResponse } from "@/types/api";

/** The user's runs (GET /api/jobs/: newest first, without their code). */
export const useRuns = () =>
  useQuery({
    queryKey: ["jobs", "history"],
    queryFn: async () => listItems(await api.get<ListResponse<Job>>("/api/jobs/")),
    staleTime: 10_000,
  });

/** One run with its code (for a diff). */
export const useRunCode = (id: number | null) =>
  useQuery({
    queryKey: ["jobs", "detail", id],
    queryFn: () => api.get<Job>(`/api/jobs/${id}/`),
    enabled: id !== null,
  });

/** PATCH /api/jobs/<id>/ {name}: the owner names a run. */
export const useRenameRun = (id: number) => {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => api.patch<Job>(`/api/jobs/${id}/`, { name }),
    onSuccess: (job) => {
      client.setQueryData(["jobs", "detail", id], job);
      void client.invalidateQueries({ queryKey: ["jobs"] });
    },
  });
};

/** POST /api/jobs/<id>/rerun/: the same code and settings, as a new job. */
export const useRerun = (id: number) => {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api.post<Job>(`/api/jobs/${id}/rerun/`),
    onSuccess: () => void client.invalidateQueries({ queryKey: ["jobs"] }),
  });
};
