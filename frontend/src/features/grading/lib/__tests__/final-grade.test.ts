import { describe, expect, it } from "vitest";
import type { FinalGrade } from "@/types/grading";
import { finalGradeText } from "../final-grade";

const grade = (over: Partial<FinalGrade> = {}): FinalGrade => ({
  score: 70, source: "submission", submission: 12, override: null, hidden_withheld: 0, ...over,
});
const override = (score: number | null, comment: string, by: string | null = "tara") => ({ score, comment, by, at: "2026-03-02T10:00:00Z" });

describe("the final grade a student reads", () => {
  it("is the latest graded submission's, naming it", () => {
    expect(finalGradeText(grade(), null)).toBe("Final grade 70 / 100 (submission #12)");
    expect(finalGradeText(grade({ score: 65.254 }), null)).toBe("Final grade 65.25 / 100 (submission #12)");
  });

  it("is an override's score with who set it and their comment", () => {
    expect(finalGradeText(grade({ score: 85, source: "override", override: override(85, "the run was unlucky") }), null)).toBe(
      'Final grade 85 / 100 (override by tara: "the run was unlucky")',
    );
    expect(finalGradeText(grade({ score: 85, source: "override", override: override(85, "  ") }), null)).toBe(
      "Final grade 85 / 100 (override by tara)",
    );
  });

  it("keeps a comment-only override's words beside the submission's score", () => {
    expect(finalGradeText(grade({ override: override(null, "see me") }), null)).toBe(
      'Final grade 70 / 100 (submission #12; comment by tara: "see me")',
    );
    expect(finalGradeText(grade({ score: null, source: null, submission: null, override: override(null, "see me") }), null)).toBe(
      'No grade yet (comment by tara: "see me")',
    );
  });

  it("says when a withheld grade shows, and never an after-the-deadline without a deadline", () => {
    const withheld = grade({ score: null, hidden_withheld: 1 });
    expect(finalGradeText(withheld, "2026-04-01T12:00:00Z")).toMatch(/^Final grade after the deadline \(.+\): it counts 1 hidden check$/);
    const none = finalGradeText({ ...withheld, hidden_withheld: 2 }, null);
    expect(none).toBe("Final grade not shown: it counts 2 hidden checks, which this assignment (no deadline) keeps hidden");
    expect(none).not.toContain("after the deadline");
  });

  it("says nothing before anything is graded", () => {
    expect(finalGradeText(grade({ score: null, source: null, submission: null }), null)).toBeNull();
    expect(finalGradeText(null, null)).toBeNull();
  });
});
