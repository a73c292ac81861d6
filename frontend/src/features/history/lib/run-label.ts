import type { Job } from "@/types/api";

/** How the history names a run in pickers: "#12 ring (sim, king) · code 1a2b3c4d". */
export function runLabel(job: Job): string {
  const how = [job.mode === "sim" ? "sim" : "live", job.network && job.network !== "lan" ? job.network : null]
    .filter(Boolean).join(", ");
  return `#${job.id} ${job.name || job.filename} (${how}) · code ${job.code_version ?? "?"}`;
}

/** The runs to offer beside `current`: every other one, newest first. */
export const otherRuns = (runs: Job[] | undefined, current: number) =>
  (runs ?? []).filter((r) => r.id !== current).sort((a, b) => b.id - a.id);
