// Pure helpers for the dashboard's reachability grid (issue 24).
import type { Daemon, Reachability } from "@/types/daemons";

export interface ReachCell {
  /** "direct", "relay" (through the node relay), "loopback" (a daemon's own nodes behind a
   * router), "none", or "unknown" (never measured: placed as if reachable) */
  kind: "direct" | "relay" | "loopback" | "none" | "unknown";
  text: string;
  /** the hover text: why not, what was tried, when */
  title: string;
}

/** One cell: can `from`'s nodes reach `to`'s? */
export function reachCell(pair: Reachability | undefined, when: (iso: string) => string): ReachCell {
  if (!pair) return { kind: "unknown", text: "?", title: "not measured" };
  const at = `${pair.address}, measured ${when(pair.measured_at)}`;
  if (pair.status === "direct") {
    const ms = pair.tcp_ms == null ? "" : ` ${pair.tcp_ms.toFixed(1)} ms`;
    return {
      kind: "direct",
      text: `direct${ms}${pair.udp ? "" : " (TCP only)"}`,
      title: pair.error ? `${pair.error} — ${at}` : at,
    };
  }
  const why = `${pair.error || "unreachable"} — ${at}`;
  if (pair.via === "relay") return { kind: "relay", text: "relay", title: `not directly: ${why}; through the relay` };
  if (pair.via === "loopback") return { kind: "loopback", text: "loopback", title: `not at its address: ${why}; its own nodes talk over 127.0.0.1` };
  return { kind: "none", text: "none", title: why };
}

/** The grid: every daemon ONLINE or measured, by name; a row per `from`, a cell per `to`. */
export function reachGrid(
  daemons: Pick<Daemon, "id" | "name" | "state">[],
  pairs: Reachability[],
  when: (iso: string) => string,
): { names: { id: number; name: string }[]; rows: { id: number; name: string; cells: (ReachCell & { to: string })[] }[] } {
  const measured = new Set(pairs.flatMap((p) => [p.src, p.dst]));
  const names = daemons
    .filter((d) => d.state === "ONLINE" || measured.has(d.id))
    .map((d) => ({ id: d.id, name: d.name }))
    .sort((a, b) => a.name.localeCompare(b.name));
  const byPair = new Map(pairs.map((p) => [`${p.src}>${p.dst}`, p]));
  const rows = names.map((from) => ({
    ...from,
    // the diagonal too: a daemon's nodes reach each other at its advertised address (or not, behind a router)
    cells: names.map((to) => ({ to: to.name, ...reachCell(byPair.get(`${from.id}>${to.id}`), when) })),
  }));
  return { names, rows };
}

/** "2 of 6 pairs cannot reach each other" / "every measured pair reaches directly" / "". */
export function reachSummary(pairs: Reachability[]): string {
  if (pairs.length === 0) return "";
  const none = pairs.filter((p) => p.status === "none").length;
  if (none === 0) return `every measured pair reaches directly (${pairs.length})`;
  const relayed = pairs.filter((p) => p.via === "relay" || p.via === "loopback").length;
  const text = `${none} of ${pairs.length} measured pairs cannot reach each other`;
  return relayed ? `${text} directly (${relayed} through the relay or loopback)` : text;
}
