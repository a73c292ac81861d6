import { describe, expect, it } from "vitest";
import type { ReportRun } from "@/types/grading";
import { graderSetupPath, parseGraderSetup, setupText } from "../run-setup";

const run: ReportRun = { name: "ring", mode: "sim", nodes: 64, time: 240, seed: 3, net: "king", churn: null, wall_s: 12, failure: null };
const search = (path: string) => new URLSearchParams(path.split("?")[1]);

describe("the grader's setup in a link", () => {
  it("carries a run's settings to the assignment page and back", () => {
    const path = graderSetupPath("/courses/1/assignments/chord", run, 12);
    expect(path).toBe("/courses/1/assignments/chord?setup=ring&mode=sim&nodes=64&time=240&seed=3&net=king&from=12");
    expect(parseGraderSetup(search(path))).toEqual({
      setup: { run: "ring", mode: "sim", nodes: 64, time: 240, seed: 3, net: "king", churn: null, from: 12 },
    });
  });

  it("keeps a model's text and the churn scenario's name", () => {
    const path = graderSetupPath("/a", { ...run, mode: "live", net: "transit-stub:2:4", churn: "scenarios/x.churn", time: 60.5 }, 3);
    const parsed = parseGraderSetup(search(path));
    expect(parsed).toMatchObject({ setup: { mode: "live", net: "transit-stub:2:4", churn: "scenarios/x.churn", time: 60.5 } });
    expect(setupText({ run: "r", mode: "sim", nodes: 1, time: 5, seed: 0, net: null, churn: null, from: null })).toBe("sim, 1 node, 5 s, seed 0");
  });

  it("is absent without ?setup, and names every bad value", () => {
    expect(parseGraderSetup(new URLSearchParams("tab=1"))).toBeNull();
    const parsed = parseGraderSetup(new URLSearchParams("setup=ring&mode=fast&nodes=0&time=-1&seed=x"));
    expect(parsed).toEqual({
      error:
        'This link\'s run settings are not valid: mode "fast" is neither sim nor live; nodes "0" is not a whole number from 1 to 10000; ' +
        'time "-1" is not a number of seconds above 0; seed "x" is not a whole number. The run bar keeps its own.',
    });
    expect(parseGraderSetup(new URLSearchParams("setup=ring&mode=sim&nodes=20000&time=5&seed=1"))).toMatchObject({
      error: expect.stringContaining('nodes "20000"'),
    });
  });
});
