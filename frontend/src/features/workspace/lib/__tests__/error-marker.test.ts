import { describe, expect, it } from "vitest";
import type { Job } from "@/types/api";
import { errorMarkerFor, syntaxErrorOf } from "../error-marker";

const code = "local x = \nprint(x)\n";
const job = (overrides: Partial<Job> = {}): Job => ({
  id: 7,
  name: "chord",
  owner: 1,
  state: "FAILED",
  reason: "app.lua:1: unexpected symbol near 'print'",
  error_line: 1,
  nodes: 10,
  duration: 30,
  filename: "app.lua",
  code,
  created_at: "2026-01-01T10:00:00Z",
  started_at: null,
  ended_at: "2026-01-01T10:00:01Z",
  ...overrides,
});
const context = { code, dismissedJobId: null, requireSameCode: true };

describe("syntaxErrorOf", () => {
  it("marks the error line of a FAILED job with the reason as message", () => {
    expect(syntaxErrorOf(job())).toEqual({ jobId: 7, line: 1, message: "app.lua:1: unexpected symbol near 'print'" });
  });

  it("ignores jobs that did not fail on a syntax error", () => {
    expect(syntaxErrorOf(job({ state: "ENDED", error_line: null }))).toBeNull();
    expect(syntaxErrorOf(job({ error_line: null, reason: "every instance failed" }))).toBeNull();
    expect(syntaxErrorOf(job({ state: "RUNNING" }))).toBeNull();
    expect(syntaxErrorOf(null)).toBeNull();
  });

  it("has a message even without a reason", () => {
    expect(syntaxErrorOf(job({ reason: null, error_line: 3 }))?.message).toBe("Syntax error on line 3");
  });
});

describe("errorMarkerFor", () => {
  it("shows the marker while the editor holds the job's code", () => {
    expect(errorMarkerFor(job(), context)?.line).toBe(1);
    expect(errorMarkerFor(job(), { ...context, code: code.replace(/\n/g, "\r\n") + "\n\n" })).not.toBeNull();
  });

  it("clears once the code was edited", () => {
    expect(errorMarkerFor(job(), { ...context, code: "local x = 1\nprint(x)\n" })).toBeNull();
    expect(errorMarkerFor(job(), { ...context, dismissedJobId: 7 })).toBeNull();
  });

  it("shows a requested job's marker even if the code differs, until dismissed", () => {
    const other = { ...context, code: "print(1)", requireSameCode: false };
    expect(errorMarkerFor(job(), other)?.jobId).toBe(7);
    expect(errorMarkerFor(job(), { ...other, dismissedJobId: 7 })).toBeNull();
  });

  it("uses dismissal alone when the job JSON has no code", () => {
    expect(errorMarkerFor(job({ code: undefined }), { ...context, code: "anything" })).not.toBeNull();
  });
});
