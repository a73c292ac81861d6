import type { LogLine, LogPage, MetricChunk, SkippedGap } from "@/types/api";

/**
 * Lines of `node` missing from the live stream: every stored line of that node with
 * afterId < id < beforeId (seqs fromSeq..toSeq were skipped).
 */
export interface SeqGap {
  node: number;
  afterId: number;
  beforeId: number;
  fromSeq: number;
  toSeq: number;
}

interface NodeMark {
  seq: number;
  id: number;
}

/**
 * Finds holes in each node's `seq` (contiguous per node: the daemon numbers every line it
 * keeps) in the live stream, so that a live view the channel layer dropped messages for
 * can fetch the missing lines from the REST log endpoint instead of losing them silently.
 *
 * Two kinds of seq are not log lines, and do not count as holes when accounted for: metric
 * records (stored as metric chunks: one sample per record, counted from the live
 * `metric.chunks` messages, which the server sends before the lines of the same batch) and a
 * journal overflow on the daemon (those lines are not stored: the backfill finds nothing).
 * Pure: no I/O, no timers.
 */
export class SeqGapTracker {
  private readonly marks = new Map<number, NodeMark>();
  private readonly metricSeqs = new Map<number, number>();

  /** Lines known complete up to their id (history pages): they set each node's mark, no gaps. */
  known(lines: readonly LogLine[]): void {
    for (const line of lines) this.advance(line);
  }

  /** Metric samples received live: each took one seq of its node. */
  metrics(chunks: readonly MetricChunk[]): void {
    for (const chunk of chunks) {
      for (const node of chunk.node ?? []) this.metricSeqs.set(node, (this.metricSeqs.get(node) ?? 0) + 1);
    }
  }

  /** Forgets metric counts: called when history catches up (its seqs are behind the marks). */
  resetMetrics(): void {
    this.metricSeqs.clear();
  }

  /**
   * Live lines (in the order received); returns the holes they reveal. A node seen for the
   * first time sets its mark without a gap: its earlier lines come with the history pages.
   */
  live(lines: readonly LogLine[]): SeqGap[] {
    const gaps: SeqGap[] = [];
    for (const line of lines) {
      const mark = this.marks.get(line.node);
      if (mark && line.seq > mark.seq + 1) {
        const missing = line.seq - mark.seq - 1;
        const metrics = this.metricSeqs.get(line.node) ?? 0;
        this.metricSeqs.set(line.node, Math.max(0, metrics - missing));
        if (missing > metrics) {
          gaps.push({ node: line.node, afterId: mark.id, beforeId: line.id, fromSeq: mark.seq + 1, toSeq: line.seq - 1 });
        }
      }
      this.advance(line);
    }
    return gaps;
  }

  /**
   * The server skipped these lines for this view (a `log.skipped` message): they become gaps
   * to fetch, and each node's mark moves past them, so the next live line of that node does
   * not report the same hole again.
   */
  skipped(skipped: readonly SkippedGap[]): SeqGap[] {
    const gaps: SeqGap[] = [];
    for (const gap of skipped) {
      if (typeof gap?.node !== "number") continue;
      gaps.push({ node: gap.node, afterId: gap.after_id, beforeId: gap.before_id, fromSeq: gap.from_seq, toSeq: gap.to_seq });
      const mark = this.marks.get(gap.node);
      if (!mark || gap.to_seq > mark.seq) this.marks.set(gap.node, { seq: gap.to_seq, id: gap.before_id - 1 });
    }
    return gaps;
  }

  private advance(line: LogLine): void {
    if (typeof line?.node !== "number" || typeof line.seq !== "number") return;
    const mark = this.marks.get(line.node);
    if (!mark || line.seq > mark.seq) this.marks.set(line.node, { seq: line.seq, id: line.id });
  }
}

/** One range per node: the gaps of a node merged (a fetch per node, not per gap). */
export function mergeGaps(gaps: readonly SeqGap[]): SeqGap[] {
  const byNode = new Map<number, SeqGap>();
  for (const gap of gaps) {
    const seen = byNode.get(gap.node);
    byNode.set(
      gap.node,
      seen
        ? {
            node: gap.node,
            afterId: Math.min(seen.afterId, gap.afterId),
            beforeId: Math.max(seen.beforeId, gap.beforeId),
            fromSeq: Math.min(seen.fromSeq, gap.fromSeq),
            toSeq: Math.max(seen.toSeq, gap.toSeq),
          }
        : { ...gap },
    );
  }
  return [...byNode.values()].sort((a, b) => a.node - b.node);
}

/** GET /api/jobs/<id>/logs/?after=<afterId>&node=<node> (api/get-job-logs.ts). */
export type NodeLogPageFetch = (node: number, after: number) => Promise<LogPage>;

/**
 * Fetches the lines of each gap (merged per node), page by page from its afterId until a page
 * reaches its beforeId or is empty; returns the lines inside the gaps, in id order per node.
 */
export async function backfillGaps(gaps: readonly SeqGap[], fetchPage: NodeLogPageFetch): Promise<LogLine[]> {
  const found: LogLine[] = [];
  for (const gap of mergeGaps(gaps)) {
    let after = gap.afterId;
    for (;;) {
      const page = await fetchPage(gap.node, after);
      const lines = page.lines ?? [];
      for (const line of lines) {
        if (line.id > gap.afterId && line.id < gap.beforeId && line.node === gap.node) found.push(line);
      }
      const last = lines[lines.length - 1];
      const next = page.next_after ?? last?.id ?? null;
      if (!last || next === null || next <= after || last.id >= gap.beforeId) break;
      after = next;
    }
  }
  return found;
}
