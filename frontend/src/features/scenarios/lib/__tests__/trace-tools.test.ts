import { describe, expect, it } from "vitest";
import { ApiError } from "@/lib/api-client";
import {
  DEFAULT_TRACE_FORM, fileTooLarge, MAX_SCENARIO_BYTES, textErrorsLine, traceFailureLines, traceFileName,
  traceRequest, traceResultLine, type TraceForm,
} from "../trace-tools";

const form = (patch: Partial<TraceForm>): TraceForm => ({ ...DEFAULT_TRACE_FORM, ...patch });
const TEXT = "at 0s join 10\nat 20s leave 5\nat 40s stop\n";

describe("traceRequest", () => {
  it("sends an empty input as not set, and seed 1 by default", () => {
    expect(traceRequest(TEXT, DEFAULT_TRACE_FORM)).toEqual({
      ok: true,
      input: { text: TEXT, seed: 1, start: null, end: null, speedup: null, amplitude: null },
    });
  });

  it("reads every number, spaces around them allowed", () => {
    const request = traceRequest(TEXT, { speedup: "2", amplitude: " 0.5 ", from: "60", to: "600", seed: "7" });
    expect(request).toEqual({ ok: true, input: { text: TEXT, seed: 7, start: 60, end: 600, speedup: 2, amplitude: 0.5 } });
    expect(traceRequest(TEXT, form({ to: "30" }))).toMatchObject({ ok: true, input: { start: null, end: 30 } });
    expect(traceRequest(TEXT, form({ from: "0", seed: "0" }))).toMatchObject({ ok: true, input: { start: 0, seed: 0 } });
  });

  it("wants the speed-up and the amplitude above 0", () => {
    expect(traceRequest(TEXT, form({ speedup: "0" }))).toEqual({ ok: false, problems: ["Speed-up: must be above 0"] });
    expect(traceRequest(TEXT, form({ amplitude: "-1" }))).toEqual({ ok: false, problems: ["Amplitude: must be above 0"] });
    expect(traceRequest(TEXT, form({ speedup: "0", amplitude: "0" }))).toEqual({
      ok: false, problems: ["Speed-up: must be above 0", "Amplitude: must be above 0"],
    });
  });

  it("wants the window to end after it starts (From empty: 0 s), from 0 s on", () => {
    const ends = { ok: false, problems: ["To: the window must end after it starts"] };
    expect(traceRequest(TEXT, form({ from: "30", to: "10" }))).toEqual(ends);
    expect(traceRequest(TEXT, form({ from: "30", to: "30" }))).toEqual(ends);
    expect(traceRequest(TEXT, form({ to: "0" }))).toEqual(ends);
    expect(traceRequest(TEXT, form({ from: "-5" }))).toEqual({ ok: false, problems: ["From: must be 0 s or later"] });
    expect(traceRequest(TEXT, form({ from: "30" }))).toMatchObject({ ok: true, input: { start: 30, end: null } });
  });

  it("refuses what is not a number, and a missing or fractional seed", () => {
    expect(traceRequest(TEXT, form({ speedup: "fast" }))).toEqual({ ok: false, problems: ["Speed-up: not a number"] });
    expect(traceRequest(TEXT, form({ to: "Infinity" }))).toEqual({ ok: false, problems: ["To: not a number"] });
    expect(traceRequest(TEXT, form({ seed: "" }))).toEqual({ ok: false, problems: ["Seed: required (a whole number, 0 or more)"] });
    expect(traceRequest(TEXT, form({ seed: "1.5" }))).toEqual({ ok: false, problems: ["Seed: a whole number, 0 or more"] });
    expect(traceRequest(TEXT, form({ seed: "-1" }))).toEqual({ ok: false, problems: ["Seed: a whole number, 0 or more"] });
  });
});

describe("the result and error lines", () => {
  it("names the nodes and the network statements dropped", () => {
    expect(traceResultLine({ nodes: 115, dropped_network: 1 })).toBe(
      "Converted to a trace of 115 nodes; 1 network statement dropped (a trace holds joins and leaves only).",
    );
    expect(traceResultLine({ nodes: 1, dropped_network: 0 })).toBe("Converted to a trace of 1 node.");
    expect(traceResultLine({ nodes: 10, dropped_network: 2 }, "massive failure.trace")).toBe(
      "Downloaded massive failure.trace: a trace of 10 nodes; 2 network statements dropped (a trace holds joins and leaves only).",
    );
  });

  it("asks to fix the text's errors first, naming the first", () => {
    const error = { line: 2, column: 6, message: "the instant: expected a time unit (s, m, h, d) after 2" };
    expect(textErrorsLine([error])).toBe(
      "Fix the scenario's errors first (line 2: the instant: expected a time unit (s, m, h, d) after 2).",
    );
    expect(textErrorsLine([error, { line: 4, column: 0, message: "x" }, { line: 5, column: 0, message: "y" }])).toBe(
      "Fix the scenario's errors first (line 2: the instant: expected a time unit (s, m, h, d) after 2; 2 more).",
    );
  });

  it("tells a 400's messages by the inputs' labels, or its detail", () => {
    const speedup = new ApiError(400, "speedup: …", { speedup: ["the speed-up factor must be above 0 and at most 1000"] });
    expect(traceFailureLines(speedup)).toEqual(["Speed-up: the speed-up factor must be above 0 and at most 1000"]);
    const both = new ApiError(400, "…", { amplitude: ["too large"], start: ["A valid number is required."] });
    expect(traceFailureLines(both)).toEqual(["Amplitude: too large", "From: A valid number is required."]);
    const window = new ApiError(400, "the window must end after it starts", { detail: "the window must end after it starts" });
    expect(traceFailureLines(window)).toEqual(["the window must end after it starts"]);
  });

  it("keeps any other failure as its message", () => {
    expect(traceFailureLines(new ApiError(500, "500 Internal Server Error", "<html>"))).toEqual(["500 Internal Server Error"]);
    expect(traceFailureLines(new TypeError("Failed to fetch"))).toEqual(["Failed to fetch"]);
  });
});

describe("files", () => {
  it("names the download after the scenario", () => {
    expect(traceFileName("massive failure")).toBe("massive failure.trace");
    expect(traceFileName("figure 4 (SPLAY paper)")).toBe("figure 4 (SPLAY paper).trace");
    expect(traceFileName("")).toBe("scenario.trace");
    expect(traceFileName("  ")).toBe("scenario.trace");
    expect(traceFileName("a/b: c?")).toBe("a_b_ c_.trace");
    expect(traceFileName("../x")).toBe("_x.trace");
  });

  it("refuses a file above 1 MB", () => {
    expect(fileTooLarge({ name: "big.trace", size: MAX_SCENARIO_BYTES + 1 })).toBe(
      "big.trace is larger than 1 MB, the limit of a scenario: not opened.",
    );
    expect(fileTooLarge({ name: "ok.trace", size: MAX_SCENARIO_BYTES })).toBeNull();
  });
});
