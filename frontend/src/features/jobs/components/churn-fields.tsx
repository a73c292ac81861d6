import { useScenarioChoices } from "../api/get-scenario-choices";
import { OWN_SCENARIO } from "../lib/churn-choice";
import { OwnChurnEditor } from "./own-churn-editor";

// The state these fields edit, for the run bar (which holds it: Run sends it).
export { useChurnChoice } from "../hooks/use-churn-choice";

interface ChurnFieldsProps {
  /** The chosen library scenario's id; OWN_SCENARIO for the student's own text; "" for none. */
  scenarioId: string;
  onScenarioId: (id: string) => void;
  /** The student's own scenario (shown when OWN_SCENARIO is chosen). */
  ownText: string;
  onOwnText: (text: string) => void;
  /** Why Run did not send the own text (empty, too large); null when it can be sent. */
  ownProblem?: string | null;
  keepPopulation: boolean;
  onKeepPopulation: (keep: boolean) => void;
  /** Why keep population cannot be chosen (e.g. a simulated run): shown as its title, and the
   * box disabled and unchecked; null when it can. */
  keepPopulationBlocked?: string | null;
}

/** The run bar's churn: a library scenario or one's own text (docs/churn.md), and the
 * keep-population mode. */
export function ChurnFields({ scenarioId, onScenarioId, ownText, onOwnText, ownProblem = null, keepPopulation, onKeepPopulation,
  keepPopulationBlocked = null }: ChurnFieldsProps) {
  const scenarios = useScenarioChoices();
  return (
    <>
      <label htmlFor="run-churn">Churn</label>
      <select id="run-churn" data-testid="run-churn" value={scenarioId} onChange={(e) => onScenarioId(e.target.value)}
        title={scenarios.isError ? "Cannot load the scenario library." : undefined}>
        <option value="">none (all nodes for the whole run)</option>
        <option value={OWN_SCENARIO}>my own scenario…</option>
        {scenarios.data?.map((s) => <option key={s.id} value={String(s.id)}>{s.name}</option>)}
      </select>
      <label title={keepPopulationBlocked ?? "A node that dies on its own (crash, lost daemon) is replaced by a spare"}
        className={keepPopulationBlocked ? "muted" : undefined}>
        <input type="checkbox" data-testid="run-keep-population" checked={keepPopulation && !keepPopulationBlocked}
          disabled={keepPopulationBlocked !== null}
          title={keepPopulationBlocked ?? undefined} onChange={(e) => onKeepPopulation(e.target.checked)} /> keep population
      </label>
      {scenarioId === OWN_SCENARIO && <OwnChurnEditor text={ownText} onText={onOwnText} problem={ownProblem} />}
    </>
  );
}
