import { useQuery } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import type { LogPage } from "@/types/api";
import type { TraceRow } from "../lib/diagram-model";

/** GET /api/jobs/<id>/trace/ (backend traces/apis.py): one page of chunks. */
interface TracePage {
  job: number;
  start: number;
  columns: string[];
  rows: TraceRow[];
  next_after: number;
}

export interface JobTrace {
  /** Epoch seconds of the job's t = 0 (rows count from it). */
  start: number;
  rows: TraceRow[];
  /** Instants of the job's error lines, in seconds since t = 0 (the diagram's red lines). */
  errors: { t: number; node: number; text: string }[];
}

const CHUNKS_PER_PAGE = 1000;
const ERROR_LINES = 1000;

/** Every row of the job's trace (page after page), and its error lines. */
export async function getJobTrace(jobId: number, signal?: AbortSignal): Promise<JobTrace> {
  const rows: TraceRow[] = [];
  let after = 0;
  let start = 0;
  for (;;) {
    const page = await api.get<TracePage>(`/api/jobs/${jobId}/trace/`, { params: { after, limit: CHUNKS_PER_PAGE }, signal });
    start = page.start;
    for (const r of page.rows) rows.push(r);
    if (page.next_after === after || page.rows.length === 0) break;
    after = page.next_after;
  }
  const logs = await api.get<LogPage>(`/api/jobs/${jobId}/logs/`, { params: { level: "error", limit: ERROR_LINES }, signal });
  // one entry per error: a raised error's traceback lines share its node and instant
  const errors: JobTrace["errors"] = [];
  for (const l of logs.lines) {
    const last = errors[errors.length - 1];
    const t = l.t - start;
    if (last && last.node === l.node && Math.abs(last.t - t) < 1e-3) continue;
    errors.push({ t, node: l.node, text: l.text });
  }
  return { start, rows, errors };
}

/** Loaded when the diagram is opened; `version` reloads it (a running job's trace grows). */
export const useJobTrace = (jobId: number, enabled: boolean, version: number) =>
  useQuery({
    queryKey: ["jobs", "trace", jobId, version],
    queryFn: ({ signal }) => getJobTrace(jobId, signal),
    enabled,
    staleTime: Infinity,
  });
