import { useQuery } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import type { Job, LogPage } from "@/types/api";
import { MetricStore } from "../lib/metric-store";

const PAGE = 1000;

export interface RunMetrics {
  label: string;
  store: MetricStore;
}

/** Another job's metric records (every page of `?level=metric`) and its legend label. */
export async function getRunMetrics(jobId: number, signal?: AbortSignal): Promise<RunMetrics> {
  const job = await api.get<Job>(`/api/jobs/${jobId}/`, { signal });
  const store = new MetricStore();
  let after = 0;
  for (;;) {
    const page = await api.get<LogPage>(`/api/jobs/${jobId}/logs/`, {
      params: { after, level: "metric", limit: PAGE }, signal,
    });
    const lines = page.lines ?? [];
    store.add(lines);
    const next = page.next_after ?? after;
    if (lines.length < PAGE || next <= after) break;
    after = next;
  }
  return { label: `job #${job.id} (${job.network ?? "lan"})`, store };
}

/** A finished run to overlay on this job's CDFs (null: none). Refetched while it may grow. */
export const useRunMetrics = (jobId: number | null) =>
  useQuery({
    queryKey: ["run-metrics", jobId],
    queryFn: ({ signal }) => getRunMetrics(jobId!, signal),
    enabled: jobId !== null,
    refetchInterval: 5000,
  });
