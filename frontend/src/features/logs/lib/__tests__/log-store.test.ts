import { describe, expect, it } from "vitest";
import type { LogLine } from "@/types/api";
import { LogStore, mergeSorted, selectWindow } from "../log-store";

const line = (id: number, node = 1, level: LogLine["level"] = "info"): LogLine => ({
  id,
  node,
  seq: id,
  t: 1_790_000_000 + id / 10,
  level,
  text: `line ${id}`,
});
const ids = (lines: readonly LogLine[]) => lines.map((l) => l.id);

describe("LogStore", () => {
  it("appends live lines in id order", () => {
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
  const all = { node: null, level: null };

  it("returns the newest rows when unfiltered", () => {
    const view = selectWindow(lines, all, 2, 0, 0);
    expect(ids(view.rows)).toEqual([4, 5]);
    expect(view.total).toBe(5);
    expect(view.anchorId).toBe(4);
  });

  it("filters by node and level, oldest first", () => {
    expect(ids(selectWindow(lines, { node: 1, level: null }, 10, 0, 0).rows)).toEqual([1, 3, 5]);
    expect(ids(selectWindow(lines, { node: null, level: "error" }, 10, 0, 0).rows)).toEqual([2, 3]);
    const both = selectWindow(lines, { node: 1, level: "error" }, 10, 0, 0);
    expect(ids(both.rows)).toEqual([3]);
    expect(both.total).toBe(1);
  });

  it("caps rows but counts every match", () => {
    const view = selectWindow(lines, { node: 1, level: null }, 2, 0, 0);
    expect(ids(view.rows)).toEqual([3, 5]);
    expect(view.total).toBe(3);
  });

  it("keeps its first row while fewer than limit + slack rows follow it, then jumps by slack", () => {
    const many = Array.from({ length: 20 }, (_, i) => line(i + 1));
    let view = selectWindow(many.slice(0, 10), all, 4, 3, 0);
    expect(ids(view.rows)).toEqual([7, 8, 9, 10]);
    view = selectWindow(many.slice(0, 12), all, 4, 3, view.anchorId);
    expect(ids(view.rows)).toEqual([7, 8, 9, 10, 11, 12]); // appended only
    view = selectWindow(many.slice(0, 13), all, 4, 3, view.anchorId);
    expect(ids(view.rows)).toEqual([10, 11, 12, 13]); // 7 rows would exceed 4 + 3: jump
  });

  it("reaches back before the anchor when a filter leaves too few rows", () => {
    const view = selectWindow(lines, { node: 1, level: null }, 3, 3, 5);
    expect(ids(view.rows)).toEqual([1, 3, 5]);
  });
});
