import type { LogLevel, LogLine } from "@/types/api";
import { searchPattern } from "./log-search";

export const MAX_LOG_LINES = 20_000;

/** Where a line sits in a job's log: its time, then its node, then its seq. */
export type LogKey = Pick<LogLine, "t" | "node" | "seq">;

/** The log's order, (t, node, seq): the backend's download uses the same (logs/download.py).
 * Arrival order is not time order: two daemons' batches interleave as the network delivers them. */
export const compareLines = (a: LogKey, b: LogKey) => a.t - b.t || a.node - b.node || a.seq - b.seq;

/**
 * The job's log lines in memory: in (t, node, seq) order, no duplicate ids, at most `capacity`
 * (the earliest are dropped). Live pushes and history pages may arrive in any order; a line
 * that arrives late is inserted at its place.
 */
export class LogStore {
  private items: LogLine[] = [];
  private readonly ids = new Set<number>();
  /** Lines accepted since creation (including ones dropped later by the cap). */
  added = 0;
  /** Highest id held or dropped by the cap, or 0: the history is paged by id. */
  maxId = 0;
  /** Highest node number seen. */
  maxNode = 0;

  constructor(readonly capacity: number = MAX_LOG_LINES) {}

  get lines(): readonly LogLine[] {
    return this.items;
  }

  get size(): number {
    return this.items.length;
  }

  /** Adds a batch; returns how many new lines were kept. */
  add(batch: readonly LogLine[]): number {
    const fresh: LogLine[] = [];
    for (const line of batch) {
      if (typeof line?.id !== "number" || this.ids.has(line.id)) continue;
      this.ids.add(line.id);
      fresh.push(line);
    }
    if (fresh.length === 0) return 0;
    fresh.sort(compareLines);
    this.added += fresh.length;
    for (const line of fresh) {
      if (line.node > this.maxNode) this.maxNode = line.node;
      if (line.id > this.maxId) this.maxId = line.id;
    }

    const last = this.items[this.items.length - 1];
    if (!last || compareLines(fresh[0]!, last) > 0) {
      for (const line of fresh) this.items.push(line); // the common case: later lines
    } else {
      // Late lines land near the end: merge only the tail from the first one's place.
      const from = upperBound(this.items, fresh[0]!);
      const tail = this.items.splice(from);
      for (const line of mergeSorted(tail, fresh)) this.items.push(line);
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

/** The first index of `lines` (sorted by compareLines) whose line comes after `key`. */
export function upperBound(lines: readonly LogLine[], key: LogKey): number {
  let lo = 0;
  let hi = lines.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareLines(lines[mid]!, key) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Merges two arrays sorted by compareLines, dropping a line whose id the other holds at the same place. */
export function mergeSorted(a: readonly LogLine[], b: readonly LogLine[]): LogLine[] {
  const out: LogLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const x = a[i];
    const y = b[j];
    const order = x === undefined ? 1 : y === undefined ? -1 : compareLines(x, y);
    if (order < 0) {
      out.push(x!);
      i++;
    } else if (order > 0) {
      out.push(y!);
      j++;
    } else {
      out.push(x!);
      i++;
      j++;
    }
  }
  return out;
}

export interface LogFilter {
  node: number | null;
  level: LogLevel | null;
  /** A case-insensitive substring of the text ("" for any). */
  text: string;
}

export const NO_FILTER: LogFilter = { node: null, level: null, text: "" };

export const isFiltered = (filter: LogFilter) => filter.node !== null || filter.level !== null || filter.text !== "";

/** A test for `filter`, built once per pass over the lines. */
export function lineMatcher(filter: LogFilter): (line: LogLine) => boolean {
  const pattern = searchPattern(filter.text);
  return (line) =>
    (filter.node === null || line.node === filter.node) &&
    (filter.level === null || line.level === filter.level) &&
    (pattern === null || pattern.test(line.text));
}

export interface LogWindow {
  rows: LogLine[];
  /** Lines matching the filter in memory. */
  total: number;
  /** The first row; pass it back on the next call. */
  anchor: LogKey | null;
}

/**
 * The rows to render: the latest matching lines, between `limit` and `limit + slack` of
 * them. The first row (`anchor`) only moves forward in steps of `slack` lines, so that
 * new lines are added to the DOM and the rows above are not removed one by one.
 */
export function selectWindow(
  lines: readonly LogLine[],
  filter: LogFilter,
  limit: number,
  slack: number,
  anchor: LogKey | null,
): LogWindow {
  const unfiltered = !isFiltered(filter);
  const matches = lineMatcher(filter);
  let total = 0;
  let sinceAnchor = 0;
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    const afterAnchor = anchor === null || compareLines(line, anchor) >= 0;
    if (unfiltered && !afterAnchor) {
      total = lines.length;
      break;
    }
    if (!matches(line)) continue;
    total++;
    if (afterAnchor) sinceAnchor++;
  }
  const take = Math.min(total, sinceAnchor >= limit && sinceAnchor < limit + slack ? sinceAnchor : limit);
  const rows: LogLine[] = [];
  for (let i = lines.length - 1; i >= 0 && rows.length < take; i--) {
    const line = lines[i]!;
    if (matches(line)) rows.push(line);
  }
  rows.reverse();
  const first = rows[0];
  return { rows, total, anchor: first ? { t: first.t, node: first.node, seq: first.seq } : null };
}
