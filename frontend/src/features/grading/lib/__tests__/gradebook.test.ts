import { describe, expect, it } from "vitest";
import type { Gradebook, GradebookCell } from "@/types/grading";
import { cellText, cellTitle, parseOverride, syncMark, withCell } from "../gradebook";

const cell = (over: Partial<GradebookCell> = {}): GradebookCell => ({
  assignment: "chord", score: null, source: null, submissions: 0, submission: null, override: null, ...over,
});

const graded = cell({
  score: 65.25, source: "submission", submissions: 3,
  submission: { id: 12, score: 72.5, final_score: 65.25, late_days: 1, penalty_percent: 10, created_at: "2026-03-01T10:00:00Z" },
});

describe("gradebook cells", () => {
  it("show the score or a dash", () => {
    expect(cellText(graded)).toBe("65.25");
    expect(cellText(cell())).toBe("—");
  });

  it("explain where the score comes from", () => {
    expect(cellTitle(graded)).toBe("latest graded submission #12: 72.5, 1 day late (−10 %) → 65.25\n3 submissions");
    const overridden = { ...graded, score: 90, source: "override" as const,
      override: { score: 90, comment: "regraded by hand", by: "teacher", at: "2026-03-02T10:00:00Z" } };
    expect(cellTitle(overridden).split("\n").slice(0, 2)).toEqual(["override by teacher: 90", "regraded by hand"]);
    expect(cellTitle(cell({ override: { score: null, comment: "see me", by: null, at: "" } }))).toBe("comment\nsee me\n0 submissions");
  });
});

describe("parseOverride", () => {
  it("takes a score from 0 to 100, a comma as decimal point", () => {
    expect(parseOverride("90", "")).toEqual({ ok: { score: 90, comment: "" } });
    expect(parseOverride(" 87,5 ", "fair")).toEqual({ ok: { score: 87.5, comment: "fair" } });
    expect(parseOverride("0", "")).toEqual({ ok: { score: 0, comment: "" } });
  });

  it("takes a comment alone (the submissions' score stays)", () => {
    expect(parseOverride("", "late: illness")).toEqual({ ok: { score: null, comment: "late: illness" } });
  });

  it("refuses nothing at all, and scores out of range or not numbers", () => {
    for (const text of ["101", "-1", "abc", "1e2", "12x"]) expect(parseOverride(text, "")).toEqual({ error: "the score is a number from 0 to 100" });
    expect(parseOverride(" ", " ")).toHaveProperty("error");
  });
});

describe("withCell", () => {
  it("replaces one student's cell of one assignment only", () => {
    const student = (id: number) => ({ id, username: `s${id}`, name: "", email: "" });
    const book: Gradebook = {
      course: 1, assignments: [],
      rows: [
        { student: student(1), cells: [cell(), cell({ assignment: "gossip" })] },
        { student: student(2), cells: [cell()] },
      ],
    };
    const next = withCell(book, 1, "chord", graded);
    expect(next.rows[0]?.cells[0]).toBe(graded);
    expect(next.rows[0]?.cells[1]).toBe(book.rows[0]?.cells[1]);
    expect(next.rows[1]).toBe(book.rows[1]);
    expect(book.rows[0]?.cells[0]?.score).toBeNull(); // not changed in place
  });
});

describe("gradebook LMS marks", () => {
  const base = { score: 80, submission: 3, changed_at: "2026-11-27T00:00:00Z", tries: 1, sent_at: null, reason: "" };
  it("say sent, pending with why, failed with why, nothing when never sent", () => {
    expect(syncMark(null)).toBeNull();
    expect(syncMark(undefined)).toBeNull();
    expect(syncMark({ ...base, state: "sent", sent_at: "2026-11-27T00:01:00Z" })).toEqual({
      text: "✓", state: "sent", title: "sent to the LMS at 2026-11-27T00:01:00Z" });
    expect(syncMark({ ...base, state: "pending", reason: "the LMS answered 500" })?.title).toBe("LMS: pending (the LMS answered 500)");
    expect(syncMark({ ...base, state: "failed", reason: "no score scope" })).toEqual({
      text: "✗", state: "failed", title: "LMS: failed (no score scope)" });
  });
});
