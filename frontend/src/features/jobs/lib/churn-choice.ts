import { ApiError } from "@/lib/api-client";

/** The Churn menu's value for "my own scenario…": a text the student writes, sent as `churn`
 * (not saved to the library). Library scenarios' values are their ids (digits). */
export const OWN_SCENARIO = "own";

/** The API's bound on a churn text (POST /api/jobs/ `churn`, and the preview's). */
export const MAX_CHURN_BYTES = 1024 * 1024;

/** What the run bar adds to POST /api/jobs/ for churn: a library scenario (its id), the
 * student's own text, or none; and the keep-population mode. */
export function churnChoice(scenarioId: string, keepPopulation: boolean, ownText = ""):
  { scenario?: number; churn?: string; keep_population: boolean } {
  if (scenarioId === OWN_SCENARIO) return { churn: ownText, keep_population: keepPopulation };
  const id = Number(scenarioId);
  return scenarioId && Number.isInteger(id) ? { scenario: id, keep_population: keepPopulation } : { keep_population: keepPopulation };
}

export const churnBytes = (text: string): number => new TextEncoder().encode(text).length;

/** Why the student's own scenario cannot be sent as it is (null: it can; the server checks the
 * rest): an empty text would be taken as no churn at all. */
export function ownChurnProblem(scenarioId: string, ownText: string): string | null {
  if (scenarioId !== OWN_SCENARIO) return null;
  if (!ownText.trim()) return "Write your churn scenario first (e.g. “at 0s join 10” and “at 30s stop”), or choose another in Churn.";
  if (churnBytes(ownText) > MAX_CHURN_BYTES) return "Your churn scenario is larger than 1 MB.";
  return null;
}

/** Nodes and duration as sent: a field left empty is left out when a scenario is chosen (the
 * scenario's node count and `stop` decide); without one both are required. */
export function runSize(nodes: string, duration: string, withScenario: boolean): { nodes?: number; duration?: number } {
  const size: { nodes?: number; duration?: number } = {};
  if (nodes.trim() || !withScenario) size.nodes = Number(nodes);
  if (duration.trim() || !withScenario) size.duration = Number(duration);
  return size;
}

const CHURN_FIELDS = ["churn", "scenario", "keep_population"] as const;

/** The server's reasons for refusing the churn part of a run (a 400 on `churn`, `scenario` or
 * `keep_population`), e.g. "line 3, column 6: …"; null when the error is about something else. */
export function churnErrorText(error: unknown): string | null {
  if (!(error instanceof ApiError) || error.status !== 400) return null;
  const body = error.body;
  if (!body || typeof body !== "object") return null;
  const record = body as Record<string, unknown>;
  const messages = CHURN_FIELDS.flatMap((field) => {
    const value = record[field];
    return Array.isArray(value) ? value.map(String) : typeof value === "string" ? [value] : [];
  });
  return messages.length ? messages.join(" ") : null;
}
