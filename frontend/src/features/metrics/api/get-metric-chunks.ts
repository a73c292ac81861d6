import { api } from "@/lib/api-client";
import type { MetricChunkPage } from "@/types/api";

export const METRIC_CHUNK_PAGE_SIZE = 500;

/** Chunks of a job with id > after, in id order (`next_after` is the cursor for the next page). */
export const getMetricChunks = (
  jobId: number,
  after: number,
  options: { name?: string; limit?: number; signal?: AbortSignal } = {},
): Promise<MetricChunkPage> =>
  api.get<MetricChunkPage>(`/api/jobs/${jobId}/metrics/chunks/`, {
    params: { after, name: options.name, limit: options.limit ?? METRIC_CHUNK_PAGE_SIZE },
    signal: options.signal,
  });
