import { useState, type FormEvent } from "react";
import { ErrorMessage } from "@/components/ui/error-message";
import { formatDateTime } from "@/lib/format";
import type { Course } from "@/types/grading";
import { useUpdateCourseRetention } from "../api/update-course-retention";
import { formatBytes, parseRetentionInput, policySentence } from "../lib/retention";

/** The course page's retention card (staff): what the students' jobs store, the course's rule,
 * and for instructors the form that changes it. */
export function CourseRetentionCard({ course, canEdit }: { course: Course; canEdit: boolean }) {
  const [days, setDays] = useState(String(course.retention_days));
  const [maxMb, setMaxMb] = useState(String(course.retention_max_mb_per_job));
  const [invalid, setInvalid] = useState<string | null>(null);
  const save = useUpdateCourseRetention(course.id);
  const use = course.disk_use;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = parseRetentionInput(days, maxMb);
    if ("error" in parsed) return setInvalid(parsed.error);
    setInvalid(null);
    save.mutate(parsed.ok);
  };

  return (
    <section className="card course-retention" aria-label="Retention and disk use">
      <h2>Retention and disk use</h2>
      {use && (
        <table className="disk-use" data-testid="course-disk-use">
          <tbody>
            <tr>
              <th scope="row">Logs</th>
              <td data-testid="disk-logs">{formatBytes(use.log_bytes)}</td>
            </tr>
            <tr>
              <th scope="row">Metrics</th>
              <td data-testid="disk-metrics">{formatBytes(use.metric_bytes)}</td>
            </tr>
            <tr>
              <th scope="row">Traces</th>
              <td data-testid="disk-traces">{formatBytes(use.trace_bytes)}</td>
            </tr>
            <tr>
              <th scope="row">Total</th>
              <td data-testid="disk-total">{formatBytes(use.total_bytes)}</td>
            </tr>
          </tbody>
        </table>
      )}
      {use && (
        <p className="muted" data-testid="disk-measured">
          {use.jobs} student job{use.jobs === 1 ? "" : "s"};{" "}
          {use.measured_at ? `measured ${formatDateTime(use.measured_at)}` : "not measured yet (the retention sweep runs every few minutes)"}.
        </p>
      )}
      <p data-testid="course-retention-rule">Logs, metrics and traces are {policySentence(course.retention_days, course.retention_max_mb_per_job)}.</p>
      {canEdit && (
        <form className="retention-form" onSubmit={submit} aria-label="Retention settings">
          <label>
            Days after a job ends (0: no limit)
            <input data-testid="retention-days" inputMode="numeric" value={days} onChange={(e) => setDays(e.target.value)} />
          </label>
          <label>
            MB per job (0: no limit)
            <input data-testid="retention-max-mb" inputMode="numeric" value={maxMb} onChange={(e) => setMaxMb(e.target.value)} />
          </label>
          <button type="submit" className="primary" data-testid="retention-save" disabled={save.isPending}>
            Save
          </button>
          {save.isSuccess && !save.isPending && <span className="save-saved" role="status">saved</span>}
        </form>
      )}
      {invalid && <div className="error-box" data-testid="retention-error">{invalid}</div>}
      {save.isError && <ErrorMessage error={save.error} />}
    </section>
  );
}
