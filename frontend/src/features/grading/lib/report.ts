// How a submission and its report read (docs/grading.md, "The report").
import type { ReportCheck, ReportRun, Submission, SubmissionStatus } from "@/types/grading";

const STATUS_LABELS: Record<SubmissionStatus, string> = {
  queued: "queued",
  running: "grading…",
  graded: "graded",
  error: "grading failed",
};

export const statusLabel = (status: SubmissionStatus): string => STATUS_LABELS[status] ?? status;

/** Still to be graded: the views poll. */
export const isPending = (status: SubmissionStatus): boolean => status === "queued" || status === "running";

/** 72.5 → "72.5", 65.25 → "65.25", 80 → "80", null → "—" (at most two decimals). */
export function formatScore(score: number | null | undefined): string {
  if (score === null || score === undefined || !Number.isFinite(score)) return "—";
  return String(Math.round(score * 100) / 100);
}

/** A check's points against its weight: "12.5 / 15". */
export const formatPoints = (check: Pick<ReportCheck, "points" | "max_points">): string =>
  `${formatScore(check.points)} / ${formatScore(check.max_points)}`;

type Scored = Pick<Submission, "status" | "score" | "final_score" | "late_days" | "penalty_percent" | "hidden_withheld">;

/** The score as a student reads it, with the late penalty when there is one:
 * "72.5 / 100", or "72.5 / 100, 1 day late (−10 %): 65.25". While hidden checks are withheld it
 * says it counts the visible checks only ("100 / 100 on the visible checks"), so that it never reads
 * as the final grade, which the report shows apart (docs/grading.md, "The report"). */
export function scoreText(submission: Scored): string {
  if (submission.status !== "graded" || submission.score === null) return statusLabel(submission.status);
  const base = `${formatScore(submission.score)} / 100${submission.hidden_withheld > 0 ? " on the visible checks" : ""}`;
  if (!submission.late_days) return base;
  const days = submission.late_days === 1 ? "1 day" : `${submission.late_days} days`;
  return `${base}, ${days} late (−${formatScore(submission.penalty_percent)} %): ${formatScore(submission.final_score)}`;
}

/** Why a student's score leaves checks out (null when none are withheld): until the deadline,
 * or for good when the assignment has none (hidden checks are never shown then). */
export function withheldNote(withheld: number, deadline: string | null): string | null {
  if (withheld <= 0) return null;
  const what = withheld === 1 ? "1 hidden check is" : `${withheld} hidden checks are`;
  if (!deadline) return `${what} not shown: this assignment has no deadline, so this score counts the visible checks only.`;
  return `${what} graded after the deadline: until then this score counts the visible checks only.`;
}

/** "5 of 6 checks passed". */
export function checksSummary(checks: readonly Pick<ReportCheck, "passed">[]): string {
  const passed = checks.filter((c) => c.passed).length;
  return `${passed} of ${checks.length} check${checks.length === 1 ? "" : "s"} passed`;
}

const seconds = (s: number) => `${formatScore(Math.round(s * 10) / 10)} s`;

/** What the run was: "sim, 64 nodes, 240 s, seed 3, net king, churn scenarios/x.churn". */
export function runSetup(run: ReportRun): string {
  const parts = [run.mode, `${run.nodes} node${run.nodes === 1 ? "" : "s"}`, `${run.time} s`, `seed ${run.seed}`];
  if (run.net) parts.push(`net ${run.net}`);
  if (run.churn) parts.push(`churn ${run.churn}`);
  return parts.join(", ");
}

/** How long it took: "12.3 s (reference 10.1 s)", "12.3 s (reference cached)". */
export function runTiming(run: ReportRun): string {
  const own = seconds(run.wall_s);
  if (run.reference_wall_s === undefined) return own;
  return `${own} (reference ${run.reference_cached ? "cached" : seconds(run.reference_wall_s)})`;
}

/** The latest submission (lists come newest first, but do not rely on it). */
export function latestSubmission<T extends Pick<Submission, "id" | "created_at">>(list: readonly T[] | undefined): T | null {
  if (!list?.length) return null;
  return list.reduce((a, b) => (b.created_at > a.created_at || (b.created_at === a.created_at && b.id > a.id) ? b : a));
}
