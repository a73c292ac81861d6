import { api } from "@/lib/api-client";
import type { JobChurnHistory, JobChurnUpdate } from "@/types/api";

/** A job's planned population and every churn event so far (404 when the job has no churn). */
export const getJobChurn = (jobId: number, options: { signal?: AbortSignal } = {}): Promise<JobChurnHistory> =>
  api.get<JobChurnHistory>(`/api/jobs/${jobId}/churn/`, { signal: options.signal });

/** The events after id `after` (no plan): what a reconnection may have missed. */
export const getJobChurnAfter = (jobId: number, after: number, options: { signal?: AbortSignal } = {}):
  Promise<JobChurnUpdate> => api.get<JobChurnUpdate>(`/api/jobs/${jobId}/churn/`, { params: { after }, signal: options.signal });
