/** Bytes as people read them: 0 B, 512 B, 1.5 KB, 23 MB, 1.2 GB (powers of 1024). */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return "—";
  const units = ["B", "KB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  if (unit === 0) return `${value} B`;
  return `${value >= 10 ? Math.round(value) : value.toFixed(1)} ${units[unit]}`;
}

/** The course's rule in words, e.g. "kept 30 days after a job ends, at most 100 MB per job". */
export function policySentence(days: number, maxMb: number): string {
  const age = days ? `kept ${days} day${days === 1 ? "" : "s"} after a job ends` : "kept with no age limit";
  const size = maxMb ? `at most ${maxMb} MB per job` : "no size limit";
  return `${age}, ${size}`;
}

export type RetentionInput = { retention_days: number; retention_max_mb_per_job: number };

/** The instructor's two fields → the PATCH body, or an error naming the field. */
export function parseRetentionInput(days: string, maxMb: string): { ok: RetentionInput } | { error: string } {
  const whole = (text: string) => (/^\s*\d+\s*$/.test(text) ? Number(text) : NaN);
  const d = whole(days);
  if (!Number.isInteger(d) || d > 3650) return { error: "Days: a whole number from 0 (no age limit) to 3650." };
  const m = whole(maxMb);
  if (!Number.isInteger(m) || m > 100_000) return { error: "MB per job: a whole number from 0 (no size limit) to 100000." };
  return { ok: { retention_days: d, retention_max_mb_per_job: m } };
}
