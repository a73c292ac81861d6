import { describe, expect, it } from "vitest";
import type { ReportRun, Submission } from "@/types/grading";
import {
  checksSummary, formatPoints, formatScore, isPending, latestSubmission, runSetup, runTiming, scoreText, statusLabel, withheldNote,
} from "../report";

const submission = (over: Partial<Submission> = {}): Submission => ({
  id: 1, assignment: "chord", assignment_title: "Chord", course: 1, student: "student", created_at: "2026-03-01T10:00:00Z", deadline: null, sha256: "ab",
  status: "graded", attempt: 1, score: 72.5, late_days: 0, penalty_percent: 0, final_score: 72.5,
  hidden_withheld: 0, graded_at: "2026-03-01T10:01:00Z", error: "", ...over,
});

describe("scores", () => {
  it("prints at most two decimals and a dash for none", () => {
    expect(formatScore(72.5)).toBe("72.5");
    expect(formatScore(65.254)).toBe("65.25");
    expect(formatScore(80)).toBe("80");
    expect(formatScore(0)).toBe("0");
    expect(formatScore(null)).toBe("—");
  });

  it("prints a check's points against its weight", () => {
    expect(formatPoints({ points: 12.5, max_points: 15 })).toBe("12.5 / 15");
    expect(formatPoints({ points: 0, max_points: 10 })).toBe("0 / 10");
  });

  it("reads a graded submission's score, with the late penalty when late", () => {
    expect(scoreText(submission())).toBe("72.5 / 100");
    expect(scoreText(submission({ late_days: 1, penalty_percent: 10, final_score: 65.25 }))).toBe(
      "72.5 / 100, 1 day late (−10 %): 65.25",
    );
    expect(scoreText(submission({ late_days: 2, penalty_percent: 20, final_score: 58 }))).toContain("2 days late (−20 %): 58");
  });

  it("says a score leaves hidden checks out while they are withheld", () => {
    expect(scoreText(submission({ score: 100, final_score: 100, hidden_withheld: 1 }))).toBe("100 / 100 on the visible checks");
    expect(scoreText(submission({ hidden_withheld: 2, late_days: 1, penalty_percent: 10, final_score: 65.25 }))).toBe(
      "72.5 / 100 on the visible checks, 1 day late (−10 %): 65.25",
    );
  });

  it("reads the status of a submission not graded yet", () => {
    expect(scoreText(submission({ status: "queued", score: null, final_score: null }))).toBe("queued");
    expect(scoreText(submission({ status: "error", score: null }))).toBe("grading failed");
    expect(statusLabel("running")).toBe("grading…");
    expect([isPending("queued"), isPending("running"), isPending("graded"), isPending("error")]).toEqual([true, true, false, false]);
  });
});

describe("report notes", () => {
  it("says why hidden checks are left out before the deadline", () => {
    const deadline = "2026-04-01T12:00:00Z";
    expect(withheldNote(0, deadline)).toBeNull();
    expect(withheldNote(1, deadline)).toBe("1 hidden check is graded after the deadline: until then this score counts the visible checks only.");
    expect(withheldNote(2, deadline)).toMatch(/^2 hidden checks are/);
  });

  it("speaks of no deadline when the assignment has none", () => {
    expect(withheldNote(0, null)).toBeNull();
    expect(withheldNote(1, null)).toBe("1 hidden check is not shown: this assignment has no deadline, so this score counts the visible checks only.");
    expect(withheldNote(2, null)).not.toContain("after the deadline");
  });

  it("counts the checks passed", () => {
    expect(checksSummary([{ passed: true }, { passed: false }, { passed: true }])).toBe("2 of 3 checks passed");
    expect(checksSummary([{ passed: true }])).toBe("1 of 1 check passed");
  });

  it("describes a run and its timing, the reference's too", () => {
    const run: ReportRun = { name: "ring", mode: "sim", nodes: 64, time: 240, seed: 3, net: "king", churn: null, wall_s: 12.34, failure: null };
    expect(runSetup(run)).toBe("sim, 64 nodes, 240 s, seed 3, net king");
    expect(runTiming(run)).toBe("12.3 s");
    expect(runTiming({ ...run, reference_wall_s: 0.01, reference_cached: true })).toBe("12.3 s (reference cached)");
    expect(runTiming({ ...run, reference_wall_s: 10.06, reference_cached: false })).toBe("12.3 s (reference 10.1 s)");
    expect(runSetup({ ...run, nodes: 1, net: null, churn: "scenarios/massive-failure.churn" })).toBe(
      "sim, 1 node, 240 s, seed 3, churn scenarios/massive-failure.churn",
    );
  });

  it("finds the latest submission whatever the order", () => {
    const a = submission({ id: 1, created_at: "2026-03-01T10:00:00Z" });
    const b = submission({ id: 2, created_at: "2026-03-01T11:00:00Z" });
    expect(latestSubmission([a, b])?.id).toBe(2);
    expect(latestSubmission([b, a])?.id).toBe(2);
    expect(latestSubmission([])).toBeNull();
  });
});
