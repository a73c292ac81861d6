import { ApiError } from "@/lib/api-client";

/** What the run bar adds to POST /api/jobs/ for churn: a library scenario (its id, or none) and
 * the keep-population mode. */
export function churnChoice(scenarioId: string, keepPopulation: boolean): { scenario?: number; keep_population: boolean } {
  const id = Number(scenarioId);
  return scenarioId && Number.isInteger(id) ? { scenario: id, keep_population: keepPopulation } : { keep_population: keepPopulation };
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
