import { describe, expect, it } from "vitest";
import { DEFAULT_DURATION, DEFAULT_NODES, runBarStart } from "../run-start";
import { DEFAULT_SEED } from "../run-mode";

describe("the run bar's first values", () => {
  it("are the defaults when nothing is handed over", () => {
    expect(runBarStart()).toEqual({
      mode: "live", nodes: String(DEFAULT_NODES), duration: String(DEFAULT_DURATION), network: "", customNet: "const:20ms",
      seed: String(DEFAULT_SEED), withHarness: false,
    });
  });

  it("take a grading run's settings, a preset network as the preset", () => {
    expect(runBarStart({ mode: "sim", nodes: 64, duration: 240, net: "king", seed: 3, withHarness: true })).toEqual({
      mode: "sim", nodes: "64", duration: "240", network: "king", customNet: "const:20ms", seed: "3", withHarness: true,
    });
  });

  it("open the custom field for a model that is no plain preset", () => {
    expect(runBarStart({ net: "transit-stub:2:4" })).toMatchObject({ network: "custom", customNet: "transit-stub:2:4" });
    expect(runBarStart({ net: "const:20ms" })).toMatchObject({ network: "custom", customNet: "const:20ms" });
    expect(runBarStart({ net: "custom" })).toMatchObject({ network: "custom", customNet: "custom" });
  });
});
