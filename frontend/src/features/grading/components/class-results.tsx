import { ErrorMessage } from "@/components/ui/error-message";
import { useDistribution } from "../api/get-distribution";
import { passedText, sparkline } from "../lib/distribution";
import { formatScore } from "../lib/report";

/** Staff: how the class did on each check (hidden ones too), from each student's counted submission. */
export function ClassResults({ courseId, slug }: { courseId: number; slug: string }) {
  const dist = useDistribution(courseId, slug, true);
  if (dist.isError) return <ErrorMessage error={dist.error} />;
  if (!dist.data) return null;
  const d = dist.data;
  return (
    <details className="card class-results" data-testid="class-results">
      <summary>
        Class results: {d.graded} of {d.students} graded{d.mean_score !== null && `, mean ${formatScore(d.mean_score)}`}
      </summary>
      <table>
        <thead>
          <tr><th>Check</th><th className="num">mean</th><th>passed</th><th title="0 → full marks, by tenths">spread</th></tr>
        </thead>
        <tbody>
          <tr>
            <td>Score (gradebook)</td>
            <td className="num">{d.mean_score === null ? "—" : formatScore(d.mean_score)}</td>
            <td />
            <td><code className="sparkline">{sparkline(d.score_histogram)}</code></td>
          </tr>
          {d.checks.map((c) => (
            <tr key={c.name} data-testid="class-results-check">
              <td>{c.name}{c.hidden && <span className="muted"> (hidden)</span>}</td>
              <td className="num">{c.mean_points === null ? "—" : `${formatScore(c.mean_points)} / ${formatScore(c.max_points)}`}</td>
              <td>{passedText(c.passed, c.students)}</td>
              <td><code className="sparkline">{sparkline(c.histogram)}</code></td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}
