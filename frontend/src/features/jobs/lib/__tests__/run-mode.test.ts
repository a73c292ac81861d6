import { describe, expect, it } from "vitest";
import { DEFAULT_SEED, MAX_NODES, MAX_SEED, keepPopulationBlocked, modeChoice, nodeLimitText } from "../run-mode";

describe("modeChoice", () => {
  it("sends mode live and no seed for Run live, whatever the seed field holds", () => {
    expect(modeChoice("live", "7", "10")).toEqual({ mode: "live" });
    expect(modeChoice("live", "not a number", "10")).toEqual({ mode: "live" });
  });

  it("sends mode sim with the typed seed for Simulate", () => {
    expect(modeChoice("sim", "7", "10")).toEqual({ mode: "sim", seed: 7 });
    expect(modeChoice("sim", " 0 ", "10")).toEqual({ mode: "sim", seed: 0 });
    expect(modeChoice("sim", String(MAX_SEED), "10")).toEqual({ mode: "sim", seed: MAX_SEED });
  });

  it("sends the default seed 1 when the seed is left empty", () => {
    expect(DEFAULT_SEED).toBe(1);
    expect(modeChoice("sim", "", "10")).toEqual({ mode: "sim", seed: 1 });
  });

  it("refuses a seed that is not a whole number in 0..2147483646", () => {
    for (const bad of ["-1", "1.5", "1e3", "abc", String(MAX_SEED + 1)]) {
      expect(modeChoice("sim", bad, "10")).toBe("The seed must be a whole number from 0 to 2,147,483,646.");
    }
  });

  it("holds up to 1,000 nodes live and 10,000 simulated", () => {
    expect(MAX_NODES).toEqual({ live: 1000, sim: 10_000 });
    expect(modeChoice("live", "1", "1000")).toEqual({ mode: "live" });
    expect(modeChoice("live", "1", "1001")).toBe("A live run holds at most 1,000 nodes (up to 10,000 simulated).");
    expect(modeChoice("sim", "3", "10000")).toEqual({ mode: "sim", seed: 3 });
    expect(modeChoice("sim", "3", "10001")).toBe("A simulated run holds at most 10,000 nodes.");
  });

  it("does not check nodes left empty (a scenario decides)", () => {
    expect(modeChoice("sim", "2", "")).toEqual({ mode: "sim", seed: 2 });
  });
});

describe("keepPopulationBlocked and nodeLimitText", () => {
  it("blocks keep population only when simulating, saying why", () => {
    expect(keepPopulationBlocked("live")).toBeNull();
    expect(keepPopulationBlocked("sim")).toMatch(/not simulated/);
  });

  it("names the mode's node limit", () => {
    expect(nodeLimitText("live")).toBe("max 1,000");
    expect(nodeLimitText("sim")).toBe("max 10,000");
  });
});
