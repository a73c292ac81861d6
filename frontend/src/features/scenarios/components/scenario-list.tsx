import { ErrorMessage } from "@/components/ui/error-message";
import { Spinner } from "@/components/ui/spinner";
import type { Scenario } from "@/types/api";

interface ScenarioListProps {
  scenarios: Scenario[] | undefined;
  error: unknown;
  /** The open scenario's id; null: a new one. */
  openId: number | null | undefined;
  canWrite: boolean;
  onOpen: (scenario: Scenario | null) => void;
}

/** The library: everyone opens a scenario; instructors and TAs also start new ones. */
export function ScenarioList({ scenarios, error, openId, canWrite, onOpen }: ScenarioListProps) {
  return (
    <aside className="scenario-library card" aria-label="Scenario library">
      <div className="scenario-library-head">
        <h2>Library</h2>
        {canWrite && (
          <button type="button" data-testid="scenario-new" onClick={() => onOpen(null)}>
            New
          </button>
        )}
      </div>
      {error ? <ErrorMessage error={error} title="Cannot load the library." /> : null}
      {!scenarios && !error && <Spinner label="Loading scenarios…" />}
      {scenarios?.length === 0 && <p className="muted">The library is empty.</p>}
      <ul className="scenario-list" data-testid="scenario-list">
        {openId === null && (
          <li>
            <span className="scenario-item open">
              <span className="scenario-item-name">New scenario</span>
            </span>
          </li>
        )}
        {scenarios?.map((scenario) => (
          <li key={scenario.id}>
            <button
              type="button"
              className={`scenario-item${scenario.id === openId ? " open" : ""}`}
              aria-current={scenario.id === openId ? "true" : undefined}
              data-testid="scenario-item"
              onClick={() => onOpen(scenario)}
            >
              <span className="scenario-item-name">{scenario.name}</span>
              {scenario.description && <span className="scenario-item-description">{scenario.description}</span>}
            </button>
          </li>
        ))}
      </ul>
    </aside>
  );
}
