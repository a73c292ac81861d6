import { describe, expect, it } from "vitest";
import { isSettled } from "../../api/get-job";
import type { Instance, InstanceState, JobState } from "@/types/api";

const instance = (node: number, state: InstanceState): Instance =>
  ({ node, daemon: 1, port: 20000 + node, state, exit_reason: null });
const job = (state: JobState, states: InstanceState[]) => ({ state, instances: states.map((s, i) => instance(i + 1, s)) });

describe("isSettled (the job page stops refreshing)", () => {
  it("keeps refreshing a running job", () => {
    expect(isSettled(job("RUNNING", ["RUNNING"]))).toBe(false);
  });

  it("keeps refreshing a stopped job whose nodes are still being ended by their daemons", () => {
    expect(isSettled(job("KILLED", ["KILLED", "RUNNING"]))).toBe(false);
    expect(isSettled(job("KILLED", ["RESERVED"]))).toBe(false);
    expect(isSettled(job("ENDED", ["LEFT"]))).toBe(false);
  });

  it("stops once the job and every instance have ended", () => {
    expect(isSettled(job("KILLED", ["KILLED", "ENDED", "FAILED", "LOST"]))).toBe(true);
    expect(isSettled(job("NO_RESOURCES", []))).toBe(true);
    expect(isSettled({ state: "ENDED" })).toBe(true);
  });

  it("is not settled before the job is known", () => {
    expect(isSettled(undefined)).toBe(false);
  });
});
