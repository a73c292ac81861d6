// How a student's final grade reads (docs/grading.md, "The report"): the gradebook's cell,
// with the instructors' override and comment when there is one.
import { formatDateTime } from "@/lib/format";
import type { FinalGrade } from "@/types/grading";
import { formatScore } from "./report";

const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;

/** 'by tara: "the run was unlucky"', or 'by tara' without a comment. */
function overrideWords(grade: FinalGrade): string {
  const o = grade.override;
  if (!o) return "";
  const who = o.by ? ` by ${o.by}` : "";
  return o.comment.trim() ? `${who}: "${o.comment.trim()}"` : who;
}

/** "Final grade 85 / 100 (override by tara: "the run was unlucky")",
 * "Final grade 54 / 100 (submission #12)", "Final grade 70 / 100 (submission #12; comment by tara: "see me")";
 * withheld: when it will show, and why; null when there is nothing to say (nothing graded, no comment). */
export function finalGradeText(grade: FinalGrade | null | undefined, deadline: string | null): string | null {
  if (!grade) return null;
  const comment = grade.override && grade.override.score === null && grade.override.comment.trim()
    ? `comment${overrideWords(grade)}` : "";
  if (grade.score !== null) {
    if (grade.source === "override") return `Final grade ${formatScore(grade.score)} / 100 (override${overrideWords(grade)})`;
    const from = grade.submission !== null ? `submission #${grade.submission}` : "";
    const why = [from, comment].filter(Boolean).join("; ");
    return `Final grade ${formatScore(grade.score)} / 100${why ? ` (${why})` : ""}`;
  }
  const tail = comment ? ` (${comment})` : "";
  if (grade.hidden_withheld > 0) {
    const counts = `it counts ${plural(grade.hidden_withheld, "hidden check")}`;
    return deadline
      ? `Final grade after the deadline (${formatDateTime(deadline)}): ${counts}${tail}`
      : `Final grade not shown: ${counts}, which this assignment (no deadline) keeps hidden${tail}`;
  }
  return comment ? `No grade yet (${comment})` : null;
}
