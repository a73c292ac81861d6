import { api } from "@/lib/api-client";
import type { LogPage } from "@/types/api";

export const LOG_PAGE_SIZE = 1000;

export const getJobLogs = (
  jobId: number,
  after: number,
  options: { node?: number; limit?: number; signal?: AbortSignal } = {},
): Promise<LogPage> =>
  api.get<LogPage>(`/api/jobs/${jobId}/logs/`, {
    params: { after, node: options.node, limit: options.limit ?? LOG_PAGE_SIZE },
    signal: options.signal,
  });
