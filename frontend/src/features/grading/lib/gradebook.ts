// Gradebook cells: what they show, and the override form's input.
import type { Gradebook, GradebookCell, GradeOverrideInput, LmsCellSync } from "@/types/grading";
import { formatScore } from "./report";

/** The cell's score: the override's if any, else the latest graded submission's final score. */
export const cellText = (cell: GradebookCell): string => (cell.score === null ? "—" : formatScore(cell.score));

/** What the cell's tooltip explains. */
export function cellTitle(cell: GradebookCell): string {
  const lines: string[] = [];
  if (cell.override) {
    const who = cell.override.by ? ` by ${cell.override.by}` : "";
    lines.push(cell.override.score === null ? `comment${who}` : `override${who}: ${formatScore(cell.override.score)}`);
    if (cell.override.comment) lines.push(cell.override.comment);
  }
  if (cell.submission) {
    const s = cell.submission;
    const late = s.late_days ? `, ${s.late_days} day${s.late_days === 1 ? "" : "s"} late (−${formatScore(s.penalty_percent)} %)` : "";
    lines.push(`latest graded submission #${s.id}: ${formatScore(s.score)}${late} → ${formatScore(s.final_score)}`);
  }
  lines.push(`${cell.submissions} submission${cell.submissions === 1 ? "" : "s"}`);
  return lines.join("\n");
}

/** The cell's LMS mark (grade passback): sent, pending with why, failed with why; null when never sent. */
export function syncMark(sync: LmsCellSync | null | undefined): { text: string; state: string; title: string } | null {
  if (!sync) return null;
  if (sync.state === "sent") return { text: "✓", state: "sent", title: `sent to the LMS${sync.sent_at ? ` at ${sync.sent_at}` : ""}` };
  if (sync.state === "pending") return { text: "…", state: "pending", title: `LMS: pending (${sync.reason || "to be sent"})` };
  return { text: "✗", state: "failed", title: `LMS: failed (${sync.reason})` };
}

export type OverrideParse = { ok: GradeOverrideInput } | { error: string };

/** The form's text: a score 0-100 (a comma is a decimal point) or empty for a comment only. */
export function parseOverride(scoreText: string, comment: string): OverrideParse {
  const text = scoreText.trim().replace(",", ".");
  if (!text) {
    return comment.trim() ? { ok: { score: null, comment } } : { error: "give a score (0-100), a comment, or both" };
  }
  const score = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !Number.isFinite(score) || score < 0 || score > 100) {
    return { error: "the score is a number from 0 to 100" };
  }
  return { ok: { score, comment } };
}

/** The book with one cell replaced (the PUT's answer), everything else as it was. */
export function withCell(book: Gradebook, studentId: number, slug: string, cell: GradebookCell): Gradebook {
  return {
    ...book,
    rows: book.rows.map((row) =>
      row.student.id !== studentId ? row : { ...row, cells: row.cells.map((c) => (c.assignment === slug ? cell : c)) },
    ),
  };
}
