import { describe, expect, it } from "vitest";
import { ApiError } from "@/lib/api-client";
import type { Scenario } from "@/types/api";
import { saveErrors } from "../save-errors";
import { canAddToLibrary, canEditScenario, draftOf, isDirty, newDraft, upsertScenario } from "../scenario-draft";

const scenario = (id: number, name: string): Scenario => ({
  id, name, description: "", text: "at 1s join 1\n", owner: "teacher", updated_at: "2024-01-01T00:00:00Z",
});

describe("scenario drafts", () => {
  it("lets the staff of some course and operators add to the library", () => {
    expect(canAddToLibrary(["student", "instructor"], false)).toBe(true);
    expect(canAddToLibrary(["ta"], false)).toBe(true);
    expect(canAddToLibrary(["student"], false)).toBe(false);
    expect(canAddToLibrary([], false)).toBe(false);
    expect(canAddToLibrary([], true)).toBe(true);
  });

  it("lets a scenario's author and operators change it", () => {
    const me = { id: 1, username: "teacher", role: "instructor" };
    expect(canEditScenario("teacher", me)).toBe(true);
    expect(canEditScenario("tara", me)).toBe(false);
    expect(canEditScenario("tara", { ...me, operator: true })).toBe(true);
    expect(canEditScenario("teacher", undefined)).toBe(false);
  });

  it("is dirty when it differs from its saved version, or when a new one has anything typed", () => {
    const saved = scenario(1, "massive failure");
    expect(isDirty(draftOf(saved), saved)).toBe(false);
    expect(isDirty({ ...draftOf(saved), text: "at 2s join 1\n" }, saved)).toBe(true);
    expect(isDirty(newDraft(), undefined)).toBe(false);
    expect(isDirty({ ...newDraft(), name: "x" }, undefined)).toBe(true);
  });

  it("adds or replaces a saved scenario, ordered by name", () => {
    const list = [scenario(1, "figure 4"), scenario(2, "massive failure")];
    expect(upsertScenario(list, scenario(3, "half")).map((s) => s.name)).toEqual(["figure 4", "half", "massive failure"]);
    expect(upsertScenario(list, scenario(1, "zzz")).map((s) => s.id)).toEqual([2, 1]);
    expect(upsertScenario(undefined, scenario(4, "a"))).toHaveLength(1);
  });
});

describe("saveErrors", () => {
  it("splits a 400 by field", () => {
    const error = new ApiError(400, "text: …", { text: ["line 1, column 6: the instant: expected a time unit (s, m, h, d) after 5"] });
    expect(saveErrors(error)).toEqual({
      name: [], description: [], other: null,
      text: ["line 1, column 6: the instant: expected a time unit (s, m, h, d) after 5"],
    });
    expect(saveErrors(new ApiError(400, "x", { name: ["a scenario named 'one' exists already"] }))?.name).toEqual([
      "a scenario named 'one' exists already",
    ]);
  });

  it("keeps any other failure as one message", () => {
    expect(saveErrors(new ApiError(403, "You do not have permission to perform this action.", {}))?.other)
      .toBe("You do not have permission to perform this action.");
    expect(saveErrors(null)).toBeNull();
  });
});
