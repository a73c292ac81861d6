import type { RunMode } from "@/types/api";

/** The controller's limits (backend/jobs/services.py): a simulated run holds every node in one
 * process on a virtual clock (docs/simulation.md), no daemon slot each. */
export const MAX_NODES: Record<RunMode, number> = { live: 1000, sim: 10_000 };
/** A simulated run without a seed is still reproducible: the server uses 1. */
export const DEFAULT_SEED = 1;
export const MAX_SEED = 2_147_483_646;

export type ModeChoice = { mode: "live" } | { mode: "sim"; seed: number };

const count = (n: number) => n.toLocaleString("en-US");

/** What the run bar adds to POST /api/jobs/ for its Run live / Simulate choice, or an error
 * naming what is wrong: a seed that is not a whole number in 0..MAX_SEED, or more nodes than the
 * mode holds. Nodes left empty (a scenario decides) are not checked here; the server is. */
export function modeChoice(mode: RunMode, seed: string, nodes: string): ModeChoice | string {
  const n = Number(nodes);
  if (nodes.trim() && Number.isFinite(n) && n > MAX_NODES[mode]) {
    return mode === "sim"
      ? `A simulated run holds at most ${count(MAX_NODES.sim)} nodes.`
      : `A live run holds at most ${count(MAX_NODES.live)} nodes (up to ${count(MAX_NODES.sim)} simulated).`;
  }
  if (mode === "live") return { mode: "live" };
  const text = seed.trim();
  if (!text) return { mode: "sim", seed: DEFAULT_SEED };
  const value = Number(text);
  if (!/^\d+$/.test(text) || value > MAX_SEED) {
    return `The seed must be a whole number from 0 to ${count(MAX_SEED)}.`;
  }
  return { mode: "sim", seed: value };
}

/** Why keep population cannot be chosen in this mode (the control's title), or null. */
export const keepPopulationBlocked = (mode: RunMode): string | null =>
  mode === "sim"
    ? "Keep population is not simulated: run live, or write the replacements in the scenario."
    : null;

/** The nodes field's hint, e.g. "max 10,000". */
export const nodeLimitText = (mode: RunMode) => `max ${count(MAX_NODES[mode])}`;
