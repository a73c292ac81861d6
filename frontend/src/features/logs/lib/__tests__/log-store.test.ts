import { describe, expect, it } from "vitest";
import type { LogLine } from "@/types/api";
import { LogStore, mergeSorted, NO_FILTER, selectWindow } from "../log-store";

const T0 = 1_790_000_000;
const line = (id: number, node = 1, level: LogLine["level"] = "info"): LogLine => ({
  id,
  node,
  seq: id,
  t: T0 + id / 10,
  level,
  text: `line ${id}`,
});
/** A line whose id (arrival) and time disagree: what two daemons' interleaved batches give. */
const stamped = (id: number, t: number, node = 1, seq = id, text = `line ${id}`): LogLine => ({
  id,
  node,
  seq,
  t: T0 + t,
  level: "print",
  text,
});
const ids = (lines: readonly LogLine[]) => lines.map((l) => l.id);

describe("LogStore", () => {
  it("appends live lines that come in time order", () => {
    const store = new LogStore();
    store.add([line(1), line(2)]);
    store.add([line(4), line(3)]);
    expect(ids(store.lines)).toEqual([1, 2, 3, 4]);
    expect(store.maxId).toBe(4);
  });

  it("drops duplicate ids from history pages that overlap live pushes", () => {
    const store = new LogStore();
    store.add([line(5), line(6)]); // live, before history arrives
    const added = store.add([line(1), line(2), line(5)]); // history page 1
    store.add([line(3), line(4), line(6), line(7)]); // history page 2
    expect(added).toBe(2);
    expect(ids(store.lines)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(store.added).toBe(7);
  });

  it("ignores duplicates inside one batch", () => {
    const store = new LogStore();
    expect(store.add([line(1), line(1), line(2)])).toBe(2);
    expect(store.add([line(2)])).toBe(0);
  });

  it("keeps only the newest lines beyond capacity", () => {
    const store = new LogStore(3);
    store.add([line(1), line(2), line(3), line(4)]);
    store.add([line(5)]);
    expect(ids(store.lines)).toEqual([3, 4, 5]);
    // A dropped old line coming back from history is dropped again, not kept in front.
    store.add([line(1)]);
    expect(ids(store.lines)).toEqual([3, 4, 5]);
  });

  it("tracks the highest node seen", () => {
    const store = new LogStore();
    store.add([line(1, 4), line(2, 12), line(3, 7)]);
    expect(store.maxNode).toBe(12);
  });
});

describe("mergeSorted", () => {
  it("merges interleaved arrays without duplicates", () => {
    expect(ids(mergeSorted([line(1), line(3), line(5)], [line(2), line(3), line(6)]))).toEqual([1, 2, 3, 5, 6]);
  });
});

describe("selectWindow", () => {
  const lines = [line(1, 1), line(2, 2, "error"), line(3, 1, "error"), line(4, 3), line(5, 1)];
  const all = NO_FILTER;

  it("returns the newest rows when unfiltered", () => {
    const view = selectWindow(lines, all, 2, 0, null);
    expect(ids(view.rows)).toEqual([4, 5]);
    expect(view.total).toBe(5);
    expect(view.anchor).toEqual({ t: T0 + 0.4, node: 3, seq: 4 });
  });

  it("filters by node and level, oldest first", () => {
    expect(ids(selectWindow(lines, { ...all, node: 1 }, 10, 0, null).rows)).toEqual([1, 3, 5]);
    expect(ids(selectWindow(lines, { ...all, level: "error" }, 10, 0, null).rows)).toEqual([2, 3]);
    const both = selectWindow(lines, { ...all, node: 1, level: "error" }, 10, 0, null);
    expect(ids(both.rows)).toEqual([3]);
    expect(both.total).toBe(1);
  });

  it("caps rows but counts every match", () => {
    const view = selectWindow(lines, { ...all, node: 1 }, 2, 0, null);
    expect(ids(view.rows)).toEqual([3, 5]);
    expect(view.total).toBe(3);
  });

  it("keeps its first row while fewer than limit + slack rows follow it, then jumps by slack", () => {
    const many = Array.from({ length: 20 }, (_, i) => line(i + 1));
    let view = selectWindow(many.slice(0, 10), all, 4, 3, null);
    expect(ids(view.rows)).toEqual([7, 8, 9, 10]);
    view = selectWindow(many.slice(0, 12), all, 4, 3, view.anchor);
    expect(ids(view.rows)).toEqual([7, 8, 9, 10, 11, 12]); // appended only
    view = selectWindow(many.slice(0, 13), all, 4, 3, view.anchor);
    expect(ids(view.rows)).toEqual([10, 11, 12, 13]); // 7 rows would exceed 4 + 3: jump
  });

  it("reaches back before the anchor when a filter leaves too few rows", () => {
    const view = selectWindow(lines, { ...all, node: 1 }, 3, 3, line(5));
    expect(ids(view.rows)).toEqual([1, 3, 5]);
  });
});

describe("LogStore's time order (t, node, seq)", () => {
  it("lists two daemons' interleaved batches by time, not by arrival", () => {
    const store = new LogStore();
    // daemon A (node 1) sends its batch first, daemon B (node 2) a moment later
    store.add([stamped(1, 0.1, 1, 1), stamped(2, 0.3, 1, 2), stamped(3, 0.5, 1, 3)]);
    store.add([stamped(4, 0.2, 2, 1), stamped(5, 0.4, 2, 2)]);
    expect(ids(store.lines)).toEqual([1, 4, 2, 5, 3]);
  });

  it("breaks a tie in time by node, then by seq", () => {
    const store = new LogStore();
    store.add([stamped(1, 1, 3, 1), stamped(2, 1, 1, 2), stamped(3, 1, 1, 1), stamped(4, 1, 2, 1)]);
    expect(store.lines.map((l) => [l.node, l.seq])).toEqual([[1, 1], [1, 2], [2, 1], [3, 1]]);
  });

  it("inserts a line that arrives late at its place and remembers the highest id for paging", () => {
    const store = new LogStore();
    store.add([stamped(1, 1), stamped(2, 2), stamped(3, 3), stamped(4, 4)]);
    store.add([stamped(9, 2.5, 2, 1)]); // node 2's line of t = 2.5 came after t = 4
    expect(ids(store.lines)).toEqual([1, 2, 9, 3, 4]);
    store.add([stamped(7, 0.5, 3, 1), stamped(8, 9, 3, 2)]); // one before all, one after all
    expect(ids(store.lines)).toEqual([7, 1, 2, 9, 3, 4, 8]);
    expect(store.maxId).toBe(9);
    expect(store.add([stamped(9, 2.5, 2, 1)])).toBe(0); // sent again: not twice
  });

  it("drops the earliest lines in time beyond capacity, and a late line earlier than all of them", () => {
    const store = new LogStore(3);
    store.add([stamped(1, 5), stamped(2, 1), stamped(3, 3), stamped(4, 4)]); // t = 1 goes
    expect(ids(store.lines)).toEqual([3, 4, 1]);
    store.add([stamped(5, 0.5, 2, 1)]);
    expect(ids(store.lines)).toEqual([3, 4, 1]);
    expect(store.added).toBe(5);
  });
});

describe("selectWindow in time order", () => {
  const timeline = (n: number) => Array.from({ length: n }, (_, i) => stamped(i + 1, i + 1));

  it("shows a late line at its place among the rows without moving the first row", () => {
    const store = new LogStore();
    store.add(timeline(10));
    let view = selectWindow(store.lines, NO_FILTER, 4, 3, null);
    expect(ids(view.rows)).toEqual([7, 8, 9, 10]);
    store.add([stamped(11, 8.5, 2, 1)]);
    view = selectWindow(store.lines, NO_FILTER, 4, 3, view.anchor);
    expect(ids(view.rows)).toEqual([7, 8, 11, 9, 10]);
    expect(view.total).toBe(11);
  });

  it("counts a late line before the first row as hidden, keeping the rows in view", () => {
    const store = new LogStore();
    store.add(timeline(10));
    let view = selectWindow(store.lines, NO_FILTER, 4, 3, null);
    store.add([stamped(12, 2.5, 2, 1)]);
    view = selectWindow(store.lines, NO_FILTER, 4, 3, view.anchor);
    expect(ids(view.rows)).toEqual([7, 8, 9, 10]);
    expect(view.total - view.rows.length).toBe(7);
  });
});

describe("selectWindow's search", () => {
  const lines = [
    stamped(1, 1, 1, 1, "Lookup key 17 from node 1"),
    stamped(2, 2, 2, 1, "stabilize: successor is 3"),
    stamped(3, 3, 2, 2, "LOOKUP key 4 timed out"),
    stamped(4, 4, 3, 1, "lookup done in 3 hops (a.b)"),
    stamped(5, 5, 3, 2, "no match here"),
  ];

  it("keeps the lines holding the text, ignoring case, and counts them", () => {
    const view = selectWindow(lines, { ...NO_FILTER, text: "lookup" }, 10, 0, null);
    expect(ids(view.rows)).toEqual([1, 3, 4]);
    expect(view.total).toBe(3);
  });

  it("combines with the node and level filters", () => {
    expect(ids(selectWindow(lines, { ...NO_FILTER, text: "Lookup", node: 2 }, 10, 0, null).rows)).toEqual([3]);
    expect(selectWindow(lines, { node: 2, level: "error", text: "lookup" }, 10, 0, null).total).toBe(0);
  });

  it("takes the text literally, not as a pattern", () => {
    expect(ids(selectWindow(lines, { ...NO_FILTER, text: "(a.b)" }, 10, 0, null).rows)).toEqual([4]);
    expect(selectWindow(lines, { ...NO_FILTER, text: "a*b" }, 10, 0, null).total).toBe(0);
  });
});
