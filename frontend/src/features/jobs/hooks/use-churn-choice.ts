import { useState } from "react";
import { ownChurnProblem } from "../lib/churn-choice";

/** The run bar's Churn menu (a library scenario's id, OWN_SCENARIO or "") and the student's own
 * text. Once Run was pressed, `ownProblem` says why the text cannot be sent (null: it can); it
 * follows the text, so it goes away as soon as the student writes one. */
export function useChurnChoice() {
  const [scenarioId, setScenarioId] = useState("");
  const [ownChurn, setOwnChurn] = useState("");
  const [runPressed, setRunPressed] = useState(false);
  const problem = ownChurnProblem(scenarioId, ownChurn);
  /** Run pressed: whether the churn part can be sent. */
  const churnReady = (): boolean => {
    setRunPressed(true);
    return problem === null;
  };
  return { scenarioId, setScenarioId, ownChurn, setOwnChurn, ownProblem: runPressed ? problem : null, churnReady };
}
