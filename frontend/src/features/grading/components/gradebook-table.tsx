import type { Gradebook } from "@/types/grading";
import { cellText, cellTitle, syncMark } from "../lib/gradebook";
import "./gradebook-lms.css";

export interface CellRef {
  studentId: number;
  slug: string;
}

interface GradebookTableProps {
  book: Gradebook;
  selected: CellRef | null;
  onSelect: (cell: CellRef) => void;
}

/** Students × assignments; a cell's score is the override's if any, else the latest graded
 * submission's final score. Clicking a cell opens it in the override form. */
export function GradebookTable({ book, selected, onSelect }: GradebookTableProps) {
  if (book.rows.length === 0) return <p className="muted">No student in this course yet.</p>;
  return (
    <div className="table-scroll gradebook-scroll">
      {book.lms?.linked && (
        <p className="muted" data-testid="gradebook-lms-note">
          Grades go back to the LMS on their own: ✓ sent, … pending (hover for why), ✗ failed (hover for the reason).
        </p>
      )}
      <table className="gradebook" data-testid="gradebook">
        <thead>
          <tr>
            <th>Student</th>
            {book.assignments.map((a) => (
              <th key={a.slug} className="num" title={a.title}>
                {a.slug}
                {!a.published && <span className="muted"> (unpublished)</span>}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {book.rows.map(({ student, cells }) => (
            <tr key={student.id} data-testid="gradebook-row" data-student={student.username}>
              <th scope="row" className="gradebook-student">
                {student.username}
                {student.name && <span className="muted"> {student.name}</span>}
              </th>
              {cells.map((cell) => {
                const isSelected = selected?.studentId === student.id && selected.slug === cell.assignment;
                const mark = syncMark(cell.lms);
                return (
                  <td key={cell.assignment} className="num">
                    <button
                      type="button"
                      className={`grade-cell${isSelected ? " selected" : ""}${cell.source === "override" ? " overridden" : ""}`}
                      data-testid="gradebook-cell"
                      data-assignment={cell.assignment}
                      data-source={cell.source ?? ""}
                      title={cellTitle(cell)}
                      aria-pressed={isSelected}
                      onClick={() => onSelect({ studentId: student.id, slug: cell.assignment })}
                    >
                      {cellText(cell)}
                      {cell.source === "override" && <span className="override-mark"> ✎</span>}
                      {cell.override?.comment && <span className="override-mark" aria-label="has a comment">*</span>}
                    </button>
                    {mark && (
                      <span className={`lms-mark lms-mark-${mark.state}`} data-testid="gradebook-lms" data-state={mark.state}
                        title={mark.title} aria-label={mark.title}>
                        {mark.text}
                      </span>
                    )}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
