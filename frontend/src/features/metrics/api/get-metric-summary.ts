import { useQueries, type UseQueryResult } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import type { MetricSummary } from "@/types/api";

/** The controller's aggregate of a run's metrics (histograms, per-node counters) and its label. */
export const getMetricSummary = (jobId: number, signal?: AbortSignal): Promise<MetricSummary> =>
  api.get<MetricSummary>(`/api/jobs/${jobId}/metrics/`, { signal });

export interface RunSummary {
  summary?: MetricSummary;
  failed: boolean;
}

// Module-level, so the combined array keeps its identity until a query result changes.
const combine = (results: UseQueryResult<MetricSummary>[]): RunSummary[] =>
  results.map((r) => ({ summary: r.data, failed: r.isError }));

/** Other runs to overlay on this job's plots, in the order of `jobIds`; refetched while they
 * may still grow. */
export const useMetricSummaries = (jobIds: readonly number[]): RunSummary[] =>
  useQueries({
    queries: jobIds.map((id) => ({
      queryKey: ["metric-summary", id],
      queryFn: ({ signal }: { signal: AbortSignal }) => getMetricSummary(id, signal),
      refetchInterval: 5000,
    })),
    combine,
  });
