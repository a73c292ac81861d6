const pad = (value: number, width = 2) => String(value).padStart(width, "0");

/** Unix seconds → local "HH:MM:SS.mmm". */
export function formatLogTime(seconds: number): string {
  const date = new Date(Math.round(seconds * 1000));
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
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
