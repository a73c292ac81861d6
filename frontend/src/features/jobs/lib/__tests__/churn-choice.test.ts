import { describe, expect, it } from "vitest";
import { ApiError } from "@/lib/api-client";
import { MAX_CHURN_BYTES, OWN_SCENARIO, churnChoice, churnErrorText, ownChurnProblem, runSize } from "../churn-choice";

describe("churnChoice", () => {
  it("sends the chosen scenario's id and the keep-population flag", () => {
    expect(churnChoice("7", true)).toEqual({ scenario: 7, keep_population: true });
    expect(churnChoice("7", false)).toEqual({ scenario: 7, keep_population: false });
  });

  it("sends no scenario for 'none', keep population still (it works without one)", () => {
    expect(churnChoice("", false)).toEqual({ keep_population: false });
    expect(churnChoice("", true)).toEqual({ keep_population: true });
  });
});

describe("the student's own scenario", () => {
  it("is sent as its text, not as a library id", () => {
    expect(churnChoice(OWN_SCENARIO, false, "at 0s join 3\n")).toEqual({ churn: "at 0s join 3\n", keep_population: false });
    expect(churnChoice(OWN_SCENARIO, true, "x")).toEqual({ churn: "x", keep_population: true });
  });

  it("leaves the text out when a library scenario or none is chosen", () => {
    expect(churnChoice("7", false, "at 0s join 3")).toEqual({ scenario: 7, keep_population: false });
    expect(churnChoice("", false, "at 0s join 3")).toEqual({ keep_population: false });
  });

  it("must be written before a run (an empty text would mean no churn) and fit in 1 MB", () => {
    expect(ownChurnProblem(OWN_SCENARIO, " \n")).toMatch(/^Write your churn scenario first/);
    expect(ownChurnProblem(OWN_SCENARIO, "at 0s join 3")).toBeNull();
    expect(ownChurnProblem(OWN_SCENARIO, "#".repeat(MAX_CHURN_BYTES))).toBeNull();
    // bytes, not characters: "é" is two bytes in UTF-8
    expect(ownChurnProblem(OWN_SCENARIO, "é".repeat(MAX_CHURN_BYTES / 2 + 1))).toBe("Your churn scenario is larger than 1 MB.");
    expect(ownChurnProblem("7", "")).toBeNull();
    expect(ownChurnProblem("", "")).toBeNull();
  });
});

describe("runSize", () => {
  it("leaves empty fields out when a scenario decides", () => {
    expect(runSize("", "", true)).toEqual({});
    expect(runSize(" ", "20", true)).toEqual({ duration: 20 });
    expect(runSize("5", "", true)).toEqual({ nodes: 5 });
  });

  it("always sends both without a scenario", () => {
    expect(runSize("3", "10", false)).toEqual({ nodes: 3, duration: 10 });
  });
});

describe("churnErrorText", () => {
  it("gives the server's reasons about the scenario", () => {
    const bad = new ApiError(400, "churn: …", { churn: ["line 3, column 6: expected a time unit"] });
    expect(churnErrorText(bad)).toBe("line 3, column 6: expected a time unit");
    const both = new ApiError(400, "scenario: …", { scenario: ["give churn or scenario, not both"] });
    expect(churnErrorText(both)).toBe("give churn or scenario, not both");
  });

  it("is null for other errors", () => {
    expect(churnErrorText(new ApiError(400, "nodes: …", { nodes: ["too many"] }))).toBeNull();
    expect(churnErrorText(new ApiError(500, "oops", { churn: ["x"] }))).toBeNull();
    expect(churnErrorText(new Error("network down"))).toBeNull();
  });
});
