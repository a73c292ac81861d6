import { describe, expect, it } from "vitest";
import type { LogLine, LogPage, MetricChunk } from "@/types/api";
import { backfillGaps, mergeGaps, SeqGapTracker } from "../seq-gaps";

const line = (id: number, node: number, seq: number): LogLine => ({
  id,
  node,
  seq,
  t: 1_790_000_000 + id / 10,
  level: "print",
  text: `node ${node} line ${seq}`,
});
const chunk = (nodes: number[]): MetricChunk => ({
  id: 1,
  node: nodes,
  name: "rtt",
  kind: "observe",
  t: nodes.map(() => 1.5),
  value: nodes.map(() => 0.1),
  fields: null,
});

/** The REST endpoint over a stored job: `after` exclusive, optional node filter, pages of `limit`. */
const server =
  (stored: LogLine[], limit = 2) =>
  async (node: number, after: number): Promise<LogPage> => {
    const lines = stored.filter((l) => l.id > after && l.node === node).slice(0, limit);
    return { lines, next_after: lines.length ? lines[lines.length - 1]!.id : after };
  };

describe("SeqGapTracker", () => {
  it("sees no gap in a contiguous stream, nor for a node's first line", () => {
    const seqs = new SeqGapTracker();
    expect(seqs.live([line(10, 1, 7), line(11, 2, 1), line(12, 1, 8)])).toEqual([]);
    expect(seqs.live([line(13, 2, 2), line(14, 1, 9)])).toEqual([]);
  });

  it("reports the ids and seqs around a node's hole", () => {
    const seqs = new SeqGapTracker();
    seqs.live([line(10, 1, 1), line(11, 2, 1)]);
    expect(seqs.live([line(20, 1, 5), line(21, 2, 2)])).toEqual([
      { node: 1, afterId: 10, beforeId: 20, fromSeq: 2, toSeq: 4 },
    ]);
  });

  it("takes history pages as the marks, whatever order live and history arrive in", () => {
    const seqs = new SeqGapTracker();
    seqs.live([line(30, 1, 30)]); // live push before the history page
    seqs.known([line(1, 1, 1), line(29, 1, 29)]);
    expect(seqs.live([line(31, 1, 31)])).toEqual([]);
    expect(seqs.live([line(33, 1, 33)])).toEqual([{ node: 1, afterId: 31, beforeId: 33, fromSeq: 32, toSeq: 32 }]);
  });

  it("does not count a resent or older line as a hole", () => {
    const seqs = new SeqGapTracker();
    seqs.live([line(10, 1, 5)]);
    expect(seqs.live([line(9, 1, 4), line(10, 1, 5), line(11, 1, 6)])).toEqual([]);
  });

  it("counts metric samples received live as taken seqs, and only those", () => {
    const seqs = new SeqGapTracker();
    seqs.live([line(10, 1, 1), line(11, 2, 1)]);
    seqs.metrics([chunk([1, 1, 2])]); // node 1 recorded 2 metric samples, node 2 one
    expect(seqs.live([line(12, 1, 4)])).toEqual([]); // seqs 2-3 were the metric records
    // node 2: one sample explains one seq, not three
    expect(seqs.live([line(13, 2, 5)])).toEqual([{ node: 2, afterId: 11, beforeId: 13, fromSeq: 2, toSeq: 4 }]);
    // the samples were used up: a later hole of node 1 is a hole
    expect(seqs.live([line(14, 1, 6)])).toEqual([{ node: 1, afterId: 12, beforeId: 14, fromSeq: 5, toSeq: 5 }]);
  });

  it("forgets metric counts from before history caught up", () => {
    const seqs = new SeqGapTracker();
    seqs.live([line(10, 1, 1)]);
    seqs.metrics([chunk([1])]);
    seqs.resetMetrics();
    expect(seqs.live([line(12, 1, 3)])).toHaveLength(1);
  });

  it("turns a server's skip notice into gaps and does not report them again on the next line", () => {
    const seqs = new SeqGapTracker();
    seqs.live([line(10, 1, 1), line(11, 2, 1)]);
    const skipped = [{ node: 1, after_id: 11, before_id: 40, from_seq: 2, to_seq: 20 }];
    expect(seqs.skipped(skipped)).toEqual([{ node: 1, afterId: 11, beforeId: 40, fromSeq: 2, toSeq: 20 }]);
    expect(seqs.live([line(41, 1, 21), line(42, 2, 2)])).toEqual([]);
    expect(seqs.live([line(44, 1, 23)])).toEqual([{ node: 1, afterId: 41, beforeId: 44, fromSeq: 22, toSeq: 22 }]);
  });

  it("fetches a skipped range through backfillGaps: the lines inside it, once", async () => {
    const stored = [line(5, 1, 1), line(6, 1, 2), line(7, 2, 1), line(8, 1, 3), line(9, 1, 4)];
    const seqs = new SeqGapTracker();
    const gaps = seqs.skipped([{ node: 1, after_id: 5, before_id: 9, from_seq: 2, to_seq: 3 }]);
    expect((await backfillGaps(gaps, server(stored))).map((l) => l.id)).toEqual([6, 8]);
  });
});

describe("mergeGaps", () => {
  it("makes one range per node", () => {
    const merged = mergeGaps([
      { node: 2, afterId: 50, beforeId: 60, fromSeq: 8, toSeq: 9 },
      { node: 1, afterId: 10, beforeId: 20, fromSeq: 2, toSeq: 4 },
      { node: 1, afterId: 30, beforeId: 40, fromSeq: 7, toSeq: 7 },
    ]);
    expect(merged).toEqual([
      { node: 1, afterId: 10, beforeId: 40, fromSeq: 2, toSeq: 7 },
      { node: 2, afterId: 50, beforeId: 60, fromSeq: 8, toSeq: 9 },
    ]);
  });
});

describe("backfillGaps", () => {
  // node 1: seq 1..8 at ids 1..8; node 2 interleaved at ids 101..104
  const stored = [
    ...Array.from({ length: 8 }, (_, i) => line(i + 1, 1, i + 1)),
    ...Array.from({ length: 4 }, (_, i) => line(101 + i, 2, i + 1)),
  ];

  it("pages the missing lines of each node in, and nothing outside the gap", async () => {
    const seqs = new SeqGapTracker();
    seqs.live([stored[0]!, stored[8]!]); // node 1 seq 1, node 2 seq 1
    const gaps = seqs.live([stored[7]!, stored[11]!]); // node 1 seq 8, node 2 seq 4
    const found = await backfillGaps(gaps, server(stored));
    expect(found.map((l) => [l.node, l.seq])).toEqual([
      [1, 2], [1, 3], [1, 4], [1, 5], [1, 6], [1, 7],
      [2, 2], [2, 3],
    ]);
  });

  it("ends when the lines are not stored (a daemon's journal overflow)", async () => {
    const seqs = new SeqGapTracker();
    seqs.live([stored[0]!]);
    const gaps = seqs.live([stored[7]!]);
    const requested: [number, number][] = [];
    const empty = async (node: number, after: number): Promise<LogPage> => {
      requested.push([node, after]);
      return { lines: [], next_after: after };
    };
    expect(await backfillGaps(gaps, empty)).toEqual([]);
    expect(requested).toEqual([[1, 1]]);
  });
});
