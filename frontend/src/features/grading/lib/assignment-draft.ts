// The assignment editor's pure parts: the form's draft made from an assignment, the deadline
// between ISO and a datetime-local input (the browser's time zone), the spec between the JSON
// the API holds and the YAML an instructor edits (syntax errors with their line, before sending),
// and the PATCH body of only what changed.
import { LineCounter, parseDocument, stringify } from "yaml";
import type { AssignmentDetail, AssignmentUpdateInput } from "@/types/grading";

/** What the form edits; texts as they are typed. */
export interface AssignmentDraft {
  title: string;
  summary: string;
  /** A datetime-local value ("2030-01-02T04:04"), local time; ignored while noDeadline. */
  deadline: string;
  noDeadline: boolean;
  published: boolean;
  handout: string;
  starter: string;
  reference: string;
  harness: string;
  /** assignment.yaml as YAML text. */
  spec: string;
  /** Path → text (churn scenarios, checks.py). */
  files: Record<string, string>;
}

/** A problem found before sending, on a field (spec errors have their line and column). */
export interface DraftError {
  field: "spec" | "deadline";
  message: string;
  line?: number;
  column?: number;
}

const pad = (n: number) => String(n).padStart(2, "0");

/** ISO (any offset) → the datetime-local value of the same instant in the browser's time zone; "" for none. */
export function isoToLocalInput(iso: string | null | undefined): string {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  const base = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
  return d.getSeconds() ? `${base}:${pad(d.getSeconds())}` : base;
}

/** A datetime-local value (local time) → ISO in UTC; null when empty or not a date. */
export function localInputToIso(value: string): string | null {
  // "YYYY-MM-DDTHH:mm[:ss]" without an offset is local time (ECMAScript date-time string format).
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?$/.test(value)) return null;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

// Keys in the order docs/grading.md writes them; the API's JSON (jsonb) keeps no order.
const TOP_ORDER = ["title", "summary", "starter", "reference", "harness", "handout", "runs", "checks"];
const RUN_ORDER = ["name", "mode", "nodes", "time", "seed", "net", "churn"];
const CHECK_ORDER = ["name", "check", "run", "weight", "hidden", "params"];

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function ordered(obj: Record<string, unknown>, order: string[]): Record<string, unknown> {
  const keys = Object.keys(obj);
  const known = order.filter((k) => keys.includes(k));
  return Object.fromEntries([...known, ...keys.filter((k) => !order.includes(k))].map((k) => [k, obj[k]]));
}

/** The spec (JSON) as YAML, keys in the documented order (runs and checks too). */
export function specToYaml(spec: Record<string, unknown> | undefined): string {
  if (!spec || Object.keys(spec).length === 0) return "";
  const top = ordered(spec, TOP_ORDER);
  const list = (v: unknown, order: string[]) => (Array.isArray(v) ? v.map((e) => (isRecord(e) ? ordered(e, order) : e)) : v);
  if ("runs" in top) top.runs = list(top.runs, RUN_ORDER);
  if ("checks" in top) top.checks = list(top.checks, CHECK_ORDER);
  return stringify(top, { lineWidth: 0 });
}

export type SpecParse = { spec: Record<string, unknown>; error?: undefined } | { error: DraftError };

/** YAML → the spec object; a syntax error (the first) names its line and column. */
export function parseSpecYaml(text: string): SpecParse {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const [first] = doc.errors;
  if (first) {
    const { line, col } = lines.linePos(first.pos[0]);
    return { error: { field: "spec", message: `line ${line}, column ${col}: ${first.message}`, line, column: col } };
  }
  const value: unknown = doc.toJS();
  if (!isRecord(value)) {
    return { error: { field: "spec", message: "line 1: the spec must be a mapping (title:, runs:, checks:, …)", line: 1 } };
  }
  return { spec: value };
}

/** The same JSON value whatever the order of object keys. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => sameJson(v, b[i]));
  }
  if (isRecord(a) && isRecord(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => k in b && sameJson(a[k], b[k]));
  }
  return a === b;
}

export function draftFromAssignment(a: AssignmentDetail): AssignmentDraft {
  return {
    title: a.title,
    summary: a.summary,
    deadline: isoToLocalInput(a.deadline),
    noDeadline: !a.deadline,
    published: a.published,
    handout: a.handout,
    starter: a.starter,
    reference: a.reference ?? "",
    harness: a.harness,
    spec: specToYaml(a.spec),
    files: { ...(a.files ?? {}) },
  };
}

const TEXTS = ["title", "summary", "handout", "starter", "reference", "harness"] as const;

export type DraftPatch = { input: AssignmentUpdateInput; error?: undefined } | { error: DraftError };

/** The PATCH body of what differs from `initial` ({} when nothing does), or the first local error. */
export function changedFields(initial: AssignmentDraft, draft: AssignmentDraft): DraftPatch {
  const input: AssignmentUpdateInput = {};
  for (const key of TEXTS) if (draft[key] !== initial[key]) input[key] = draft[key];
  if (draft.published !== initial.published) input.published = draft.published;
  if (draft.noDeadline) {
    if (!initial.noDeadline) input.deadline = null;
  } else if (initial.noDeadline || draft.deadline !== initial.deadline) {
    const iso = localInputToIso(draft.deadline);
    if (!iso) return { error: { field: "deadline", message: "deadline: pick a date and time, or tick “No deadline”" } };
    input.deadline = iso;
  }
  if (draft.spec !== initial.spec) {
    const parsed = parseSpecYaml(draft.spec);
    if (parsed.error) return { error: parsed.error };
    const before = parseSpecYaml(initial.spec);
    if (before.error || !sameJson(parsed.spec, before.spec)) input.spec = parsed.spec;
  }
  if (!sameJson(draft.files, initial.files)) input.files = { ...draft.files };
  return { input };
}
