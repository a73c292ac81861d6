import type { Job, JobProgress } from "@/types/api";

const whole = (n: number) => Math.round(n).toLocaleString("en-US");
const tenths = (n: number) => n.toLocaleString("en-US", { minimumFractionDigits: 1, maximumFractionDigits: 1 });

/** A simulated job's progress once the simulator has reported it ({} until then). */
export function knownProgress(job: Pick<Job, "progress">): JobProgress | null {
  const p = job.progress as Partial<JobProgress> | undefined;
  return p && typeof p.virtual_t === "number" && Number.isFinite(p.virtual_t) ? (p as JobProgress) : null;
}

/** "virtual 12.3 s of 600 s · 1,234,567 events · 250,000 events/s" */
export function formatSimProgress(progress: JobProgress, duration: number): string {
  return [
    `virtual ${tenths(progress.virtual_t)} s of ${whole(duration)} s`,
    `${whole(progress.events ?? 0)} events`,
    `${whole(progress.events_per_s ?? 0)} events/s`,
  ].join(" · ");
}

/** virtual_t / duration, within 0..1 (0 when either is unknown). */
export function progressFraction(progress: JobProgress | null, duration: number): number {
  if (!progress || !(duration > 0)) return 0;
  return Math.min(1, Math.max(0, progress.virtual_t / duration));
}

/** "seed 7", or null without a seed. */
export const seedText = (job: Pick<Job, "seed">) => (job.seed === null || job.seed === undefined ? null : `seed ${job.seed}`);

/** A simulated job gets the "simulated" badge and, while it runs, the progress line. */
export const isSimulated = (job: Pick<Job, "mode">) => job.mode === "sim";
