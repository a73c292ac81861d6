const pad = (value: number, width = 2) => String(value).padStart(width, "0");

/** Unix seconds → local "HH:MM:SS.mmm". */
export function formatLogTime(seconds: number): string {
  const date = new Date(Math.round(seconds * 1000));
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}

/** Seconds of a simulated run's virtual clock → "+MM:SS.mmm" ("+H:MM:SS.mmm" past an hour): a
 * simulation runs faster than real time, so its lines carry no wall-clock time of day. */
export function formatVirtualTime(seconds: number): string {
  const ms = Math.max(0, Math.round(seconds * 1000));
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor(ms / 60_000) % 60;
  const s = Math.floor(ms / 1000) % 60;
  const rest = `${pad(m)}:${pad(s)}.${pad(ms % 1000, 3)}`;
  return h > 0 ? `+${h}:${rest}` : `+${rest}`;
}

/** ISO timestamp → short local date-time, or "—". */
export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return "—";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString(undefined, {
    year: "numeric",
    month: "short",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  });
}
