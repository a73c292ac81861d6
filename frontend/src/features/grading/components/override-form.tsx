import { useState, type FormEvent } from "react";
import { Link } from "react-router";
import { ErrorMessage } from "@/components/ui/error-message";
import type { GradebookCell, GradebookStudent } from "@/types/grading";
import { useGradeOverride } from "../api/set-grade-override";
import { cellTitle, parseOverride } from "../lib/gradebook";
import { formatScore } from "../lib/report";

interface OverrideFormProps {
  courseId: number;
  student: GradebookStudent;
  cell: GradebookCell;
}

/** One cell of the gradebook: where its score comes from, and the override (a score that
 * replaces the submissions', or none: a comment only) with its comment. */
export function OverrideForm({ courseId, student, cell }: OverrideFormProps) {
  const [score, setScore] = useState(cell.override?.score === null || !cell.override ? "" : String(cell.override.score));
  const [comment, setComment] = useState(cell.override?.comment ?? "");
  const [invalid, setInvalid] = useState<string | null>(null);
  const save = useGradeOverride(courseId);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = parseOverride(score, comment);
    if ("error" in parsed) return setInvalid(parsed.error);
    setInvalid(null);
    save.mutate({ slug: cell.assignment, studentId: student.id, input: parsed.ok });
  };
  const remove = () => {
    setInvalid(null);
    save.mutate({ slug: cell.assignment, studentId: student.id, input: null }, { onSuccess: () => (setScore(""), setComment("")) });
  };

  return (
    <form className="card override-form" onSubmit={submit} data-testid="override-form" aria-label="Grade override">
      <h2>
        {student.username} · {cell.assignment}: <span data-testid="override-current">{formatScore(cell.score)}</span>
      </h2>
      <p className="muted override-explain">{cellTitle(cell)}</p>
      {cell.submission && <Link to={`/submissions/${cell.submission.id}`}>Open the latest graded submission (#{cell.submission.id})</Link>}
      <div className="override-fields">
        <label>
          Override score (0-100; empty: comment only)
          <input data-testid="override-score" inputMode="decimal" value={score} onChange={(e) => setScore(e.target.value)} />
        </label>
        <label className="override-comment">
          Comment
          <textarea data-testid="override-comment" rows={3} value={comment} onChange={(e) => setComment(e.target.value)} />
        </label>
      </div>
      <div className="override-actions">
        <button type="submit" className="primary" data-testid="override-save" disabled={save.isPending}>
          Save
        </button>
        {cell.override && (
          <button type="button" data-testid="override-remove" disabled={save.isPending} onClick={remove}>
            Remove override
          </button>
        )}
        {save.isSuccess && !save.isPending && <span className="save-saved" role="status">saved</span>}
      </div>
      {invalid && <div className="error-box" data-testid="override-error">{invalid}</div>}
      {save.isError && <ErrorMessage error={save.error} />}
    </form>
  );
}
