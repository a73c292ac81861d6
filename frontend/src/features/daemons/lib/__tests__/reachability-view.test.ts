import { describe, expect, it } from "vitest";
import type { Reachability } from "@/types/daemons";
import { reachCell, reachGrid, reachSummary } from "../reachability-view";

const pair = (over: Partial<Reachability> = {}): Reachability => ({
  src: 1, src_name: "lab-1", dst: 2, dst_name: "lab-2", status: "direct", tcp: true, udp: true, tcp_ms: 0.84,
  error: "", address: "10.0.0.2:40123", measured_at: "2026-01-01T12:00:00Z", via: "direct", ...over,
});
const when = () => "3 s ago";

describe("reachability grid", () => {
  it("says direct with the round trip, none with why, ? when never measured", () => {
    expect(reachCell(pair(), when)).toEqual({ kind: "direct", text: "direct 0.8 ms", title: "10.0.0.2:40123, measured 3 s ago" });
    expect(reachCell(pair({ udp: false, error: "UDP: no answer within 2 s" }), when)).toEqual({
      kind: "direct", text: "direct 0.8 ms (TCP only)",
      title: "UDP: no answer within 2 s — 10.0.0.2:40123, measured 3 s ago" });
    expect(reachCell(pair({ status: "none", via: "none", tcp: false, udp: false, tcp_ms: null, error: "TCP: no answer within 2 s" }), when))
      .toEqual({ kind: "none", text: "none", title: "TCP: no answer within 2 s — 10.0.0.2:40123, measured 3 s ago" });
    expect(reachCell(undefined, when)).toEqual({ kind: "unknown", text: "?", title: "not measured" });
  });

  it("says relay where the node relay carries a pair, loopback for a daemon's own nodes behind a router", () => {
    const none = { status: "none" as const, tcp: false, udp: false, tcp_ms: null, error: "TCP: no answer within 2 s" };
    expect(reachCell(pair({ ...none, via: "relay" }), when)).toEqual({ kind: "relay", text: "relay",
      title: "not directly: TCP: no answer within 2 s — 10.0.0.2:40123, measured 3 s ago; through the relay" });
    expect(reachCell(pair({ ...none, dst: 1, via: "loopback" }), when).kind).toBe("loopback");
    expect(reachSummary([pair(), pair({ ...none, src: 2, dst: 1, via: "relay" })]))
      .toBe("1 of 2 measured pairs cannot reach each other directly (1 through the relay or loopback)");
  });

  it("lays out online or measured daemons by name, one cell per ordered pair", () => {
    const daemons = [
      { id: 2, name: "lab-2", state: "ONLINE" as const },
      { id: 1, name: "lab-1", state: "ONLINE" as const },
      { id: 3, name: "old", state: "OFFLINE" as const }, // neither online nor measured: left out
    ];
    const grid = reachGrid(daemons, [pair(), pair({ src: 2, dst: 1, status: "none", tcp: false, error: "TCP: x" }),
      pair({ src: 2, dst: 2, status: "none", tcp: false, error: "TCP: Connection refused" })], when);
    expect(grid.names.map((n) => n.name)).toEqual(["lab-1", "lab-2"]);
    expect(grid.rows.map((row) => row.cells.map((c) => `${row.name}>${c.to}:${c.kind}`))).toEqual([
      ["lab-1>lab-1:unknown", "lab-1>lab-2:direct"], ["lab-2>lab-1:none", "lab-2>lab-2:none"]]);
  });

  it("sums the pairs up", () => {
    expect(reachSummary([])).toBe("");
    expect(reachSummary([pair(), pair({ src: 2, dst: 1 })])).toBe("every measured pair reaches directly (2)");
    expect(reachSummary([pair(), pair({ src: 2, dst: 1, status: "none" })])).toBe("1 of 2 measured pairs cannot reach each other");
  });
});
