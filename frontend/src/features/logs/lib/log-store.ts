import type { LogLevel, LogLine } from "@/types/api";

export const MAX_LOG_LINES = 20_000;

const byId = (a: LogLine, b: LogLine) => a.id - b.id;

/**
 * The job's log lines in memory: ordered by id, no duplicate ids, at most `capacity`
 * (the oldest are dropped). Live pushes and history pages may arrive in any order.
 */
export class LogStore {
  private items: LogLine[] = [];
  private readonly ids = new Set<number>();
  /** Lines accepted since creation (including ones dropped later by the cap). */
  added = 0;

  constructor(readonly capacity: number = MAX_LOG_LINES) {}

  get lines(): readonly LogLine[] {
    return this.items;
  }

  get size(): number {
    return this.items.length;
  }

  /** Highest id held, or 0. */
  get maxId(): number {
    return this.items.length ? this.items[this.items.length - 1]!.id : 0;
  }

  /** Highest node number seen. */
  maxNode = 0;

  /** Adds a batch; returns how many new lines were kept. */
  add(batch: readonly LogLine[]): number {
    const fresh: LogLine[] = [];
    for (const line of batch) {
      if (typeof line?.id !== "number" || this.ids.has(line.id)) continue;
      this.ids.add(line.id);
      fresh.push(line);
    }
    if (fresh.length === 0) return 0;
    fresh.sort(byId);
    this.added += fresh.length;
    for (const line of fresh) if (line.node > this.maxNode) this.maxNode = line.node;

    const last = this.items[this.items.length - 1];
    if (!last || fresh[0]!.id > last.id) {
      for (const line of fresh) this.items.push(line); // the common case: newer lines
    } else {
      this.items = mergeSorted(this.items, fresh);
    }
    this.trim();
    return fresh.length;
  }

  private trim(): void {
    const excess = this.items.length - this.capacity;
    if (excess <= 0) return;
    const dropped = this.items.splice(0, excess);
    for (const line of dropped) this.ids.delete(line.id);
  }
}

/** Merges two id-sorted arrays without duplicates. */
export function mergeSorted(a: readonly LogLine[], b: readonly LogLine[]): LogLine[] {
  const out: LogLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const x = a[i];
    const y = b[j];
    if (y === undefined || (x !== undefined && x.id < y.id)) {
      out.push(x!);
      i++;
    } else if (x === undefined || y.id < x.id) {
      out.push(y);
      j++;
    } else {
      out.push(x);
      i++;
      j++;
    }
  }
  return out;
}

export interface LogFilter {
  node: number | null;
  level: LogLevel | null;
}

export const matches = (line: LogLine, filter: LogFilter) =>
  (filter.node === null || line.node === filter.node) && (filter.level === null || line.level === filter.level);

export interface LogWindow {
  rows: LogLine[];
  /** Lines matching the filter in memory. */
  total: number;
  /** Id of the first row; pass it back on the next call. */
  anchorId: number;
}

/**
 * The rows to render: the newest matching lines, between `limit` and `limit + slack` of
 * them. The first row (`anchorId`) only moves forward in steps of `slack` lines, so that
 * new lines are appended to the DOM and the rows above are not removed one by one.
 */
export function selectWindow(
  lines: readonly LogLine[],
  filter: LogFilter,
  limit: number,
  slack: number,
  anchorId: number,
): LogWindow {
  const unfiltered = filter.node === null && filter.level === null;
  let total = 0;
  let sinceAnchor = 0;
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    if (unfiltered && line.id < anchorId) {
      total = lines.length;
      break;
    }
    if (!matches(line, filter)) continue;
    total++;
    if (line.id >= anchorId) sinceAnchor++;
  }
  const take = Math.min(total, sinceAnchor >= limit && sinceAnchor < limit + slack ? sinceAnchor : limit);
  const rows: LogLine[] = [];
  for (let i = lines.length - 1; i >= 0 && rows.length < take; i--) {
    const line = lines[i]!;
    if (matches(line, filter)) rows.push(line);
  }
  rows.reverse();
  return { rows, total, anchorId: rows[0]?.id ?? 0 };
}
