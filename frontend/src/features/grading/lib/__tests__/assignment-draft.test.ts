import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { AssignmentDetail } from "@/types/grading";
import {
  changedFields,
  draftFromAssignment,
  isoToLocalInput,
  localInputToIso,
  parseSpecYaml,
  sameJson,
  specToYaml,
} from "../assignment-draft";

// Node reads TZ again whenever it is assigned: the browser's zone, here one with summer time.
beforeAll(() => {
  vi.stubEnv("TZ", "Europe/Zurich");
});
afterAll(() => {
  vi.unstubAllEnvs();
});

const SPEC = {
  checks: [{ weight: 10, check: "no_runtime_errors", name: "No error" }],
  runs: [{ seed: 3, name: "ring", nodes: 64 }],
  title: "Chord",
};

const assignment = (over: Partial<AssignmentDetail> = {}): AssignmentDetail => ({
  id: 1, slug: "chord", title: "Chord", summary: "Build it", deadline: null, published: true, updated_at: "2026-01-01T00:00:00Z",
  course: 1, handout: "# Chord\n", starter: "-- start\n", harness: "-- harness\n", runs: [], checks: [],
  late_penalty_percent: 10, max_late_days: 3, closes_at: null, hidden_revealed: false,
  reference: "-- ref\n", spec: SPEC, files: { "scenarios/a.churn": "at 0s join 10\n" }, ...over,
});

describe("deadline between ISO and datetime-local", () => {
  it("shows the instant in the browser's time zone, summer and winter", () => {
    expect(isoToLocalInput("2030-07-01T10:30:00Z")).toBe("2030-07-01T12:30");
    expect(isoToLocalInput("2030-01-02T03:04:00+00:00")).toBe("2030-01-02T04:04");
    expect(isoToLocalInput("2030-01-02T03:04:05Z")).toBe("2030-01-02T04:04:05");
    expect(isoToLocalInput(null)).toBe("");
    expect(isoToLocalInput("not a date")).toBe("");
  });

  it("reads the input as local time and sends UTC", () => {
    expect(localInputToIso("2030-07-01T12:30")).toBe("2030-07-01T10:30:00.000Z");
    expect(localInputToIso("2030-01-02T04:04:05")).toBe("2030-01-02T03:04:05.000Z");
    expect(localInputToIso("")).toBeNull();
    expect(localInputToIso("2030-01-02")).toBeNull();
  });

  it("round-trips", () => {
    for (const iso of ["2030-03-31T00:15:00.000Z", "2030-10-27T23:59:00.000Z", "2031-02-28T12:00:07.000Z"]) {
      expect(localInputToIso(isoToLocalInput(iso))).toBe(iso);
    }
  });
});

describe("spec as YAML", () => {
  it("is written with the documented key order and read back the same", () => {
    const text = specToYaml(SPEC);
    expect(text.split("\n").slice(0, 4)).toEqual(["title: Chord", "runs:", "  - name: ring", "    nodes: 64"]);
    expect(text.indexOf("name: No error")).toBeLessThan(text.indexOf("check: no_runtime_errors"));
    const parsed = parseSpecYaml(text);
    expect(parsed.error ? parsed.error.message : sameJson(parsed.spec, SPEC)).toBe(true);
  });

  it("names the line and column of a syntax error", () => {
    const parsed = parseSpecYaml("title: x\nruns:\n  - name: a\n   bad: 1\n");
    expect(parsed.error).toMatchObject({ field: "spec", line: 4, column: 1 });
    expect(parsed.error?.message).toMatch(/^line 4, column 1: /);
  });

  it("refuses duplicate keys, an unclosed quote and tabs, each with its line", () => {
    expect(parseSpecYaml("title: a\ntitle: b\n").error).toMatchObject({ line: 2 });
    expect(parseSpecYaml("title: x\nsummary: \"open\n").error?.line).toBeGreaterThanOrEqual(2);
    expect(parseSpecYaml("title: x\nruns:\n\t- name: a\n").error).toMatchObject({ line: 3 });
  });

  it("must be a mapping", () => {
    expect(parseSpecYaml("- 1\n- 2\n").error?.message).toMatch(/must be a mapping/);
    expect(parseSpecYaml("").error?.message).toMatch(/must be a mapping/);
  });
});

describe("the changed fields", () => {
  const initial = draftFromAssignment(assignment({ deadline: "2030-01-02T03:04:00Z" }));

  it("are none for an untouched form", () => {
    expect(changedFields(initial, { ...initial })).toEqual({ input: {} });
  });

  it("are the texts, flags and files that differ", () => {
    const draft = {
      ...initial, handout: "# Chord\nNew line\n", published: false, files: { ...initial.files, "scenarios/b.churn": "x" },
    };
    expect(changedFields(initial, draft)).toEqual({
      input: { handout: "# Chord\nNew line\n", published: false, files: { "scenarios/a.churn": "at 0s join 10\n", "scenarios/b.churn": "x" } },
    });
    const { "scenarios/a.churn": _gone, ...none } = initial.files;
    expect(changedFields(initial, { ...initial, files: none })).toEqual({ input: { files: {} } });
  });

  it("send the deadline as UTC, or null for no deadline, and refuse an empty one", () => {
    expect(changedFields(initial, { ...initial, deadline: "2030-07-01T12:30" })).toEqual({
      input: { deadline: "2030-07-01T10:30:00.000Z" },
    });
    expect(changedFields(initial, { ...initial, noDeadline: true })).toEqual({ input: { deadline: null } });
    expect(changedFields(initial, { ...initial, deadline: "" }).error?.field).toBe("deadline");
    const none = draftFromAssignment(assignment());
    expect(none.noDeadline).toBe(true);
    expect(changedFields(none, { ...none, deadline: "2031-01-01T00:00" })).toEqual({ input: {} });
    expect(changedFields(none, { ...none, noDeadline: false, deadline: "2031-01-01T00:00" })).toEqual({
      input: { deadline: "2030-12-31T23:00:00.000Z" },
    });
  });

  it("send the spec parsed, only when its meaning changed", () => {
    const reformatted = `# a comment\n${initial.spec}`;
    expect(changedFields(initial, { ...initial, spec: reformatted })).toEqual({ input: {} });
    const edited = initial.spec.replace("no_runtime_errors", "nope");
    const patch = changedFields(initial, { ...initial, spec: edited });
    expect(patch.error).toBeUndefined();
    expect(patch.error ? null : (patch.input.spec?.checks as { check: string }[])[0]?.check).toBe("nope");
  });

  it("stop at a YAML error, with its line", () => {
    const patch = changedFields(initial, { ...initial, title: "New", spec: "title: [\n" });
    expect(patch.error).toMatchObject({ field: "spec", line: expect.any(Number) });
  });
});
