import { describe, expect, it } from "vitest";
import { formatVirtualTime } from "../format";

describe("formatVirtualTime (a simulated run's lines)", () => {
  it("counts minutes, seconds and milliseconds from the simulation's start", () => {
    expect(formatVirtualTime(0)).toBe("+00:00.000");
    expect(formatVirtualTime(12.3456)).toBe("+00:12.346");
    expect(formatVirtualTime(599.9994)).toBe("+09:59.999");
  });

  it("adds hours past an hour and never goes below zero", () => {
    expect(formatVirtualTime(3_723.004)).toBe("+1:02:03.004");
    expect(formatVirtualTime(-0.2)).toBe("+00:00.000");
  });
});
