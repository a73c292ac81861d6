import { api } from "@/lib/api-client";
import type { JobChurnHistory } from "@/types/api";

/** A job's planned population and every churn event so far (404 when the job has no churn). */
export const getJobChurn = (jobId: number, options: { signal?: AbortSignal } = {}): Promise<JobChurnHistory> =>
  api.get<JobChurnHistory>(`/api/jobs/${jobId}/churn/`, { signal: options.signal });
