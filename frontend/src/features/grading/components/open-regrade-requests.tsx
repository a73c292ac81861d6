import { Link } from "react-router";
import { useOpenRegradeRequests } from "../api/regrade-requests";

/** The gradebook page's list of the course's open regrade requests, each a link to its submission. */
export function OpenRegradeRequests({ courseId }: { courseId: number }) {
  const open = useOpenRegradeRequests(courseId);
  if (!open.data || open.data.length === 0) return null;
  return (
    <section className="card" aria-label="Open regrade requests" data-testid="open-regrade-requests">
      <h2>Open regrade requests ({open.data.length})</h2>
      <ul>
        {open.data.map((r) => (
          <li key={r.id}>
            <Link to={`/submissions/${r.submission}`}>
              {r.student}, {r.assignment}, submission #{r.submission}
            </Link>
            : {r.message.length > 120 ? `${r.message.slice(0, 120)}…` : r.message}
          </li>
        ))}
      </ul>
    </section>
  );
}
