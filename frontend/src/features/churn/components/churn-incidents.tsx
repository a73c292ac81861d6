import type { ChurnEvent } from "@/types/api";

/** The latest few are listed; the counts say how many there were. */
const SHOWN = 6;

function Latest({ title, events, testId }: { title: string; events: ChurnEvent[]; testId: string }) {
  return (
    <div className="churn-incidents-group">
      <h3>
        {title} <span data-testid={testId}>{events.length}</span>
      </h3>
      {events.length > 0 && (
        <ul>
          {events.slice(-SHOWN).reverse().map((e) => (
            <li key={e.id}>
              <span className="muted">{e.t.toFixed(1)} s</span> {e.text}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** Nodes that died on their own and the spares that replaced them (keep population). */
export function ChurnIncidents({ failures, replacements }: { failures: ChurnEvent[]; replacements: ChurnEvent[] }) {
  return (
    <div className="churn-incidents">
      <Latest title="Failures" events={failures} testId="churn-failure-count" />
      <Latest title="Replacements" events={replacements} testId="churn-replacement-count" />
    </div>
  );
}
