import { useState } from "react";
import { ownChurnProblem } from "../lib/churn-choice";

/** The run bar's Churn menu (a library scenario's id, OWN_SCENARIO or "") and the student's own
 * text, with why that text cannot be sent yet (null: it can). */
export function useChurnChoice() {
  const [scenarioId, setScenarioId] = useState("");
  const [ownChurn, setOwnChurn] = useState("");
  return { scenarioId, setScenarioId, ownChurn, setOwnChurn, churnProblem: ownChurnProblem(scenarioId, ownChurn) };
}
