import type { Job } from "@/types/api";

export interface SyntaxErrorMarker {
  jobId: number;
  line: number;
  message: string;
}

const normalise = (code: string) => code.replace(/\r\n?/g, "\n").trimEnd();

/** The syntax error a job reports, if it FAILED with `error_line` set. */
export function syntaxErrorOf(job: Job | null | undefined): SyntaxErrorMarker | null {
  if (!job || job.state !== "FAILED" || job.error_line === null || job.error_line === undefined) return null;
  const line = Math.max(1, Math.floor(Number(job.error_line)));
  if (!Number.isFinite(line)) return null;
  return { jobId: job.id, line, message: job.reason?.trim() || `Syntax error on line ${line}` };
}

export interface MarkerContext {
  /** The editor's current text. */
  code: string;
  /** A job whose marker the user dismissed by editing. */
  dismissedJobId: number | null;
  /** When false (the user asked for this job), a job whose code differs still gets its marker. */
  requireSameCode: boolean;
}

/**
 * The marker to show in the editor for `job`: only while the editor holds the code that job
 * ran (when the job carries its code) and until the user edits after it was shown.
 */
export function errorMarkerFor(job: Job | null | undefined, context: MarkerContext): SyntaxErrorMarker | null {
  const marker = syntaxErrorOf(job);
  if (!marker || !job) return null;
  if (context.dismissedJobId === marker.jobId) return null;
  if (context.requireSameCode && typeof job.code === "string" && normalise(job.code) !== normalise(context.code)) {
    return null;
  }
  return marker;
}
