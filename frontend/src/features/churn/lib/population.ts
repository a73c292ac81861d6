// Planned and actual population of a job with churn (pure; the panel only draws it).
// Times are seconds since the job's churn epoch, the scenario's t = 0.
import type { ChurnEvent } from "@/types/api";

/** [t, population from t on], in time order. */
export type PopulationSteps = [number, number][];

/** `known` plus the events of `incoming` whose id it lacks, in id order; `known` itself when
 * nothing is new (events come live and again from GET /churn/ after a reconnection). */
export function mergeEvents(known: readonly ChurnEvent[], incoming: readonly ChurnEvent[]): readonly ChurnEvent[] {
  const ids = new Set(known.map((e) => e.id));
  const fresh = incoming.filter((e) => {
    if (ids.has(e.id)) return false;
    ids.add(e.id);
    return true;
  });
  return fresh.length ? [...known, ...fresh].sort((a, b) => a.id - b.id) : known;
}

/** The actual population: +1 at every join, −1 at every leave or failure (the events are the
 * nodes' up/down transitions), one step per instant. */
export function actualSteps(events: readonly ChurnEvent[]): PopulationSteps {
  const ordered = [...events].sort((a, b) => a.t - b.t || a.id - b.id);
  const steps: PopulationSteps = [];
  let population = 0;
  for (const event of ordered) {
    population += event.event === "join" ? 1 : -1;
    const last = steps[steps.length - 1];
    if (last && last[0] === event.t) last[1] = population;
    else steps.push([event.t, population]);
  }
  return steps;
}

/** The population at t: that of the last step at or before t; 0 before the first. */
export function populationAt(steps: readonly (readonly [number, number])[], t: number): number {
  let population = 0;
  for (const [at, value] of steps) {
    if (at > t) break;
    population = value;
  }
  return population;
}

/**
 * Seconds since the scenario start "now": the job's end once it ended, else the browser's
 * clock (never before the last event seen, should that clock be behind the daemons'); null
 * before the job starts (no epoch yet). A simulated job gives `virtualT`, the virtual time its
 * simulator reached: its clock, since a simulation runs faster than real time.
 */
export function scenarioElapsed(epoch: number | null, endedAt: string | null, nowMs: number,
  events: readonly ChurnEvent[], virtualT: number | null = null): number | null {
  if (epoch === null) return null;
  const ended = endedAt ? Date.parse(endedAt) / 1000 : Number.NaN;
  const elapsed = virtualT ?? (Number.isFinite(ended) ? ended : nowMs / 1000) - epoch;
  return events.reduce((latest, e) => Math.max(latest, e.t), Math.max(0, elapsed));
}

/**
 * uPlot columns [x, actual, planned]: both populations on one time axis (stepped lines: a value holds until the
 * next x): every instant of either, from 0 to `end`. The actual population is drawn up to
 * `now` only (null after it, and everywhere before the job starts).
 */
export function populationColumns(planned: PopulationSteps, actual: PopulationSteps, end: number,
  now: number | null): [number[], (number | null)[], number[]] {
  const instants = new Set<number>([0, end, ...planned.map(([t]) => t), ...actual.map(([t]) => t)]);
  if (now !== null) instants.add(now);
  const xs = [...instants].sort((a, b) => a - b);
  return [
    xs,
    xs.map((x) => (now !== null && x <= now ? populationAt(actual, x) : null)),
    xs.map((x) => populationAt(planned, x)),
  ];
}

/** Nodes that died on their own, and the spares started in their place (keep population). */
export function incidents(events: readonly ChurnEvent[]): { failures: ChurnEvent[]; replacements: ChurnEvent[] } {
  return {
    failures: events.filter((e) => e.event === "fail"),
    replacements: events.filter((e) => e.event === "join" && e.plays !== null),
  };
}
