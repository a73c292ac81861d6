// A report's log lines of a run (backend grading/grader/run_logs.py).
import type { ReportRunLogs } from "@/types/grading";

const count = (n: number, what: string) => `${n.toLocaleString("en-US")} ${what}${n === 1 ? "" : "s"}`;

/** "8 lines, 5 errors", or when capped "2,000 of 5,321 lines, errors first; 12 errors". */
export function logsSummary(logs: ReportRunLogs): string {
  const errors = count(logs.errors, "error");
  if (logs.lines.length >= logs.total) return `${count(logs.total, "line")}, ${errors}`;
  return `${logs.lines.length.toLocaleString("en-US")} of ${count(logs.total, "line")}, errors first; ${errors}`;
}

export const LEVEL_LABEL: Record<string, string> = { debug: "DEBUG", info: "INFO", warning: "WARN", error: "ERROR", print: "PRINT" };
