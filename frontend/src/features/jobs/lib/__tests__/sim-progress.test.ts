import { describe, expect, it } from "vitest";
import type { Job } from "@/types/api";
import { formatSimProgress, isSimulated, knownProgress, progressFraction, seedText } from "../sim-progress";

const progress = { virtual_t: 12.34, events: 1_234_567, events_per_s: 250_000.4, nodes_started: 10 };

describe("formatSimProgress", () => {
  it("gives the virtual time of the duration, the events and their rate", () => {
    expect(formatSimProgress(progress, 600)).toBe("virtual 12.3 s of 600 s · 1,234,567 events · 250,000 events/s");
  });

  it("keeps one decimal of virtual time and groups thousands", () => {
    expect(formatSimProgress({ ...progress, virtual_t: 0, events: 0, events_per_s: 0 }, 10))
      .toBe("virtual 0.0 s of 10 s · 0 events · 0 events/s");
    expect(formatSimProgress({ ...progress, virtual_t: 1234.56, events: 9_876_543_210, events_per_s: 999.6 }, 3600))
      .toBe("virtual 1,234.6 s of 3,600 s · 9,876,543,210 events · 1,000 events/s");
  });
});

describe("knownProgress", () => {
  it("is null until the simulator reports ({} or absent)", () => {
    expect(knownProgress({ progress: {} })).toBeNull();
    expect(knownProgress({})).toBeNull();
    expect(knownProgress({ progress })).toEqual(progress);
  });
});

describe("progressFraction", () => {
  it("is virtual_t / duration, kept within 0..1", () => {
    expect(progressFraction({ ...progress, virtual_t: 150 }, 600)).toBe(0.25);
    expect(progressFraction({ ...progress, virtual_t: 700 }, 600)).toBe(1);
    expect(progressFraction(null, 600)).toBe(0);
    expect(progressFraction(progress, 0)).toBe(0);
  });
});

describe("seedText and isSimulated", () => {
  it("names the seed, if any", () => {
    expect(seedText({ seed: 7 })).toBe("seed 7");
    expect(seedText({ seed: 0 })).toBe("seed 0");
    expect(seedText({ seed: null })).toBeNull();
  });

  it("tells simulated jobs from live ones (and from jobs without a mode)", () => {
    expect(isSimulated({ mode: "sim" })).toBe(true);
    expect(isSimulated({ mode: "live" })).toBe(false);
    expect(isSimulated({} as Pick<Job, "mode">)).toBe(false);
  });
});
