// The trace tools' form (pure): the request from the typed strings, its result and its errors as
// lines, the downloaded file's name (docs/churn.md "Traces and tools").
import { ApiError } from "@/lib/api-client";
import type { ChurnError, ChurnTraceInput, ChurnTraceOk } from "@/types/api";

/** The inputs as typed; "" is not set (the seed excepted). */
export interface TraceForm {
  speedup: string;
  amplitude: string;
  from: string;
  to: string;
  seed: string;
}

export const DEFAULT_TRACE_FORM: TraceForm = { speedup: "", amplitude: "", from: "", to: "", seed: "1" };

/** The server's limit of a scenario's text (backend/lib/churn_preview.py MAX_TEXT_BYTES). */
export const MAX_SCENARIO_BYTES = 1024 * 1024;

/** The inputs' labels, also naming the fields of a 400 ({"speedup": [...]}). */
export const TRACE_FIELD_LABELS: Record<string, string> = {
  speedup: "Speed-up",
  amplitude: "Amplitude",
  start: "From",
  end: "To",
  seed: "Seed",
  text: "Text",
};

export type TraceRequest = { ok: true; input: ChurnTraceInput } | { ok: false; problems: string[] };

/** null: not set; NaN: not a number. */
function parseNumber(value: string): number | null {
  const trimmed = value.trim();
  if (!trimmed) return null;
  const n = Number(trimmed);
  return Number.isFinite(n) ? n : Number.NaN;
}

/** The body of POST /api/scenarios/trace/ for `text`, or what is wrong with the form: the speed-up
 * and the amplitude above 0, the window within 0 s and on, ending after it starts (From empty: 0). */
export function traceRequest(text: string, form: TraceForm): TraceRequest {
  const problems: string[] = [];
  const number = (value: string, label: string): number | null => {
    const n = parseNumber(value);
    if (n !== null && Number.isNaN(n)) problems.push(`${label}: not a number`);
    return n !== null && Number.isNaN(n) ? null : n;
  };
  const speedup = number(form.speedup, "Speed-up");
  const amplitude = number(form.amplitude, "Amplitude");
  const start = number(form.from, "From");
  const end = number(form.to, "To");
  const seed = number(form.seed, "Seed");

  if (speedup !== null && speedup <= 0) problems.push("Speed-up: must be above 0");
  if (amplitude !== null && amplitude <= 0) problems.push("Amplitude: must be above 0");
  if (start !== null && start < 0) problems.push("From: must be 0 s or later");
  else if (end !== null && end <= (start ?? 0)) problems.push("To: the window must end after it starts");
  if (form.seed.trim() === "") problems.push("Seed: required (a whole number, 0 or more)");
  else if (seed !== null && !(Number.isInteger(seed) && seed >= 0)) problems.push("Seed: a whole number, 0 or more");

  if (problems.length) return { ok: false, problems };
  return { ok: true, input: { text, seed: seed ?? 1, start, end, speedup, amplitude } };
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** "a trace of 115 nodes; 1 network statement dropped (a trace holds joins and leaves only)". */
function traceFacts(trace: Pick<ChurnTraceOk, "nodes" | "dropped_network">): string {
  const dropped = trace.dropped_network
    ? `; ${plural(trace.dropped_network, "network statement")} dropped (a trace holds joins and leaves only)`
    : "";
  return `a trace of ${plural(trace.nodes, "node")}${dropped}`;
}

/** The one-line result: "Converted to a trace of 115 nodes; …." or "Downloaded x.trace: a trace of …." */
export function traceResultLine(trace: Pick<ChurnTraceOk, "nodes" | "dropped_network">, downloaded?: string): string {
  return downloaded === undefined ? `Converted to ${traceFacts(trace)}.` : `Downloaded ${downloaded}: ${traceFacts(trace)}.`;
}

/** "Fix the scenario's errors first (line 2: …)", the first bad line and how many more. */
export function textErrorsLine(errors: ChurnError[]): string {
  const [first] = errors;
  if (!first) return "Fix the scenario's errors first.";
  const more = errors.length > 1 ? `; ${errors.length - 1} more` : "";
  return `Fix the scenario's errors first (line ${first.line}: ${first.message}${more}).`;
}

/** A refused request as lines: a 400's messages by field ("Speed-up: …") or its detail; any other
 * failure (a server error, a lost connection) as its message. */
export function traceFailureLines(error: unknown): string[] {
  if (error instanceof ApiError && error.status === 400 && error.body && typeof error.body === "object") {
    const lines: string[] = [];
    for (const [field, value] of Object.entries(error.body as Record<string, unknown>)) {
      const messages = Array.isArray(value) ? value.map(String) : typeof value === "string" ? [value] : [];
      const label = field === "detail" || field === "non_field_errors" ? "" : `${TRACE_FIELD_LABELS[field] ?? field}: `;
      lines.push(...messages.map((m) => label + m));
    }
    if (lines.length) return lines;
  }
  return [error instanceof Error ? error.message : String(error)];
}

/** `<scenario name>.trace` ("scenario.trace" without a name), without the characters a file name
 * cannot hold. */
export function traceFileName(name: string): string {
  const base = name.replace(/[\u0000-\u001f\u007f/\\:*?"<>|]+/g, "_").replace(/^[\s.]+|[\s.]+$/g, "");
  return `${base || "scenario"}.trace`;
}

/** Why a local file is not opened (null: it may be): the server reads 1 MB at most. */
export function fileTooLarge(file: { name: string; size: number }): string | null {
  return file.size > MAX_SCENARIO_BYTES ? `${file.name} is larger than 1 MB, the limit of a scenario: not opened.` : null;
}
