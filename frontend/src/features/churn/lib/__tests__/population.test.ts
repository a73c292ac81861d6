import { describe, expect, it } from "vitest";
import type { ChurnEvent } from "@/types/api";
import { actualSteps, incidents, mergeEvents, populationAt, populationColumns, scenarioElapsed } from "../population";

let nextId = 1;
const ev = (event: ChurnEvent["event"], t: number, node: number, extra: Partial<ChurnEvent> = {}): ChurnEvent => ({
  id: nextId++, node, plays: null, event, t, planned: event === "fail" ? null : t, graceful: false,
  text: `node ${node} ${event}`, ...extra,
});

describe("mergeEvents", () => {
  it("takes each event once, in id order, whatever the order they arrive in", () => {
    const [a, b, c] = [ev("join", 0, 1), ev("join", 0, 2), ev("leave", 8, 1)];
    const live = mergeEvents([], [c!]);
    const merged = mergeEvents(live, [a!, b!, c!]); // history after the live push
    expect(merged.map((e) => e.id)).toEqual([a!.id, b!.id, c!.id]);
    expect(mergeEvents(merged, [b!, c!])).toBe(merged); // nothing new: the same array
    expect(mergeEvents([], [a!, a!])).toHaveLength(1);
  });
});

describe("actualSteps", () => {
  it("counts +1 per join, −1 per leave or failure, one step per instant", () => {
    const events = [ev("join", 0, 1), ev("join", 0, 2), ev("join", 3.01, 3), ev("join", 3.02, 4),
      ev("leave", 8, 2), ev("fail", 9.5, 3), ev("join", 10, 5, { plays: 3, planned: null })];
    expect(actualSteps(events)).toEqual([[0, 2], [3.01, 3], [3.02, 4], [8, 3], [9.5, 2], [10, 3]]);
  });

  it("orders by time, not by arrival: ids from different daemons interleave", () => {
    const late = ev("leave", 5, 1);
    const early = ev("join", 1, 1);
    expect(actualSteps([late, early])).toEqual([[1, 1], [5, 0]]);
    expect(actualSteps([])).toEqual([]);
  });
});

describe("populationAt", () => {
  const steps: [number, number][] = [[0, 2], [3, 4], [8, 3]];
  it("is the population of the last step at or before t, 0 before the first", () => {
    expect(populationAt(steps, -1)).toBe(0);
    expect(populationAt(steps, 0)).toBe(2);
    expect(populationAt(steps, 2.999)).toBe(2);
    expect(populationAt(steps, 3)).toBe(4);
    expect(populationAt(steps, 100)).toBe(3);
  });
});

describe("populationColumns", () => {
  it("puts both populations on every instant of either, the actual one up to now only", () => {
    const planned: [number, number][] = [[0, 2], [3, 4], [8, 3]];
    const actual: [number, number][] = [[0.2, 2], [3.1, 4]];
    const [xs, act, plan] = populationColumns(planned, actual, 14, 5);
    expect(xs).toEqual([0, 0.2, 3, 3.1, 5, 8, 14]);
    expect(plan).toEqual([2, 2, 4, 4, 4, 3, 3]);
    expect(act).toEqual([0, 2, 2, 4, 4, null, null]);
  });

  it("draws no actual population before the job starts", () => {
    const [xs, act, plan] = populationColumns([[0, 2]], [], 10, null);
    expect(xs).toEqual([0, 10]);
    expect(plan).toEqual([2, 2]);
    expect(act).toEqual([null, null]);
  });
});

describe("scenarioElapsed", () => {
  const epoch = 1_790_000_000;
  it("counts from the epoch to now while running, to the end once ended", () => {
    expect(scenarioElapsed(epoch, null, (epoch + 4.5) * 1000, [])).toBeCloseTo(4.5);
    const endedAt = new Date((epoch + 14) * 1000).toISOString();
    expect(scenarioElapsed(epoch, endedAt, (epoch + 600) * 1000, [])).toBeCloseTo(14);
  });

  it("is null before the start and never before the last event (a browser clock behind)", () => {
    expect(scenarioElapsed(null, null, Date.now(), [])).toBeNull();
    expect(scenarioElapsed(epoch, null, (epoch + 2) * 1000, [ev("join", 3, 1)])).toBe(3);
    expect(scenarioElapsed(epoch, null, (epoch - 5) * 1000, [])).toBe(0);
  });

  it("follows a simulation's virtual clock, not the wall clock it ended by", () => {
    // A 60 s scenario simulated in 30 s of wall time: "at the end" is virtual 60 s, not 30 s.
    const endedAt = new Date((epoch + 30) * 1000).toISOString();
    expect(scenarioElapsed(epoch, endedAt, (epoch + 600) * 1000, [ev("leave", 25, 1)], 60)).toBe(60);
    expect(scenarioElapsed(epoch, null, (epoch + 2) * 1000, [], 17.5)).toBe(17.5);
  });
});

describe("incidents", () => {
  it("lists failures and the spares' joins that replaced them", () => {
    const fail = ev("fail", 4, 2);
    const spare = ev("join", 4.5, 5, { plays: 2, planned: null });
    const { failures, replacements } = incidents([ev("join", 0, 2), fail, spare, ev("leave", 8, 1)]);
    expect(failures).toEqual([fail]);
    expect(replacements).toEqual([spare]);
  });
});
