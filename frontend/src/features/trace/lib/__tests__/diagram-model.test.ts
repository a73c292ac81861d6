import { describe, expect, it } from "vitest";
import { buildDiagram, describeCall, visibleRange, type TraceRow } from "../diagram-model";

// t, node, type, peer, name, out, in, outcome, op, depth, dur, count
const row = (t: number, node: number, type: string, peer: number | string, name: string, out: number, inb: number,
  outcome = "ok", op = "", depth = 0, dur = 0, count = 1): TraceRow =>
  [t, node, type, peer, name, out, inb, outcome, op, depth, dur, count];

describe("buildDiagram", () => {
  it("draws a call answered by a serve as a request to the serve and a reply back to the call's end", () => {
    const model = buildDiagram([
      row(1.0, 1, "call", 2, "find_successor", 40, 30, "ok", "1:5:1", 1, 0.2),
      row(1.05, 2, "serve", 1, "find_successor", 30, 40, "ok", "1:5:1", 1, 0.1),
    ], 3);
    const r6 = (x: number) => Number(x.toFixed(6));
    expect(model.messages.map((m) => [m.kind, m.from, m.to, r6(m.t0), r6(m.t1), m.bytes, m.inferred])).toEqual([
      ["request", 1, 2, 1.0, 1.05, 40, false],
      ["reply", 2, 1, 1.15, 1.2, 30, false],
    ]);
    expect(model.calls).toHaveLength(1);
    expect(model.nodes).toBe(3);
  });

  it("infers the arrival at the midpoint when no serve matches, and draws no reply for a timeout", () => {
    const model = buildDiagram([
      row(2, 1, "call", 2, "ping", 10, 8, "ok", "", 0, 0.4),
      row(3, 1, "call", 3, "ping", 10, 0, "timeout", "", 0, 1),
    ], 3);
    expect(model.messages.map((m) => [m.kind, m.from, m.to, m.t0, m.t1, m.inferred])).toEqual([
      ["request", 1, 2, 2, 2.2, true],
      ["reply", 2, 1, 2.2, 2.4, true],
      ["request", 1, 3, 3, 4, true],
    ]);
  });

  it("matches a serve only to a call of the same function and operation, within the call", () => {
    const model = buildDiagram([
      row(1, 1, "call", 2, "get", 10, 10, "ok", "1:1:1", 1, 0.5),
      row(1.1, 2, "serve", 0, "put", 10, 10, "ok", "1:1:1", 1, 0),     // another function
      row(1.2, 2, "serve", 0, "get", 10, 10, "ok", "3:1:9", 1, 0),     // another operation
      row(2.0, 2, "serve", 0, "get", 10, 10, "ok", "1:1:1", 1, 0),     // after the call ended
    ], 2);
    expect(model.messages.filter((m) => m.kind === "request").map((m) => m.inferred)).toEqual([true]);
  });

  it("lists an operation's calls in time order, at every depth, named by its op row", () => {
    const op = "4:1700000000000:2";
    const model = buildDiagram([
      row(10.5, 7, "call", 9, "find_successor", 50, 40, "ok", op, 2, 0.2),
      row(10, 4, "op", 0, "lookup", 0, 0, "ok", op, 0, 1.5),
      row(10.1, 4, "call", 7, "find_successor", 50, 40, "ok", op, 1, 0.9),
      row(10.2, 5, "call", 6, "notify", 20, 10, "ok", "", 0, 0.1),
    ], 10);
    expect(model.ops).toHaveLength(1);
    const [o] = model.ops;
    expect(o).toMatchObject({ op, name: "lookup", node: 4, t: 10, dur: 1.5, outcome: "ok" });
    expect(o!.calls.map((i) => describeCall(model.calls[i]!))).toEqual([
      "t=10.100 s · node 4 → node 7 · find_successor · depth 1 · ok",
      "t=10.500 s · node 7 → node 9 · find_successor · depth 2 · ok",
    ]);
  });

  it("counts rows naming an address outside the job and draws raw sends as instant arrows", () => {
    const model = buildDiagram([
      row(1, 1, "send", 2, "", 100, 0),
      row(2, 1, "call", "10.0.0.1:80", "x", 10, 10, "ok", "", 0, 0.1),
    ], 2);
    expect(model.external).toBe(1);
    expect(model.messages).toEqual([expect.objectContaining({ kind: "raw", from: 1, to: 2, t0: 1, t1: 1 })]);
  });
});

describe("visibleRange", () => {
  it("keeps every message crossing the window, and starts no later than the longest message allows", () => {
    const rows: TraceRow[] = [];
    for (let i = 0; i < 1000; i++) rows.push(row(i, 1 + (i % 5), "call", 1 + ((i + 1) % 5), "f", 1, 1, "ok", "", 0, i === 100 ? 50 : 0.5));
    const model = buildDiagram(rows, 5);
    const [from, to] = visibleRange(model, 120, 130);
    const crossing = model.messages.filter((m) => m.t0 <= 130 && m.t1 >= 120);
    const shown = model.messages.slice(from, to).filter((m) => m.t1 >= 120);
    expect(shown).toEqual(crossing);
    expect(crossing.some((m) => m.t0 === 100)).toBe(true);   // the long call started before the window
  });
});
