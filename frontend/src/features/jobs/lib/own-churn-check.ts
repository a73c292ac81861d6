import { isPreviewOk, type ChurnError, type ChurnPreview, type ChurnPreviewOk } from "@/types/api";

/** The run bar's check of a student's own churn text as they type (POST /api/scenarios/preview/):
 * the latest answer's errors, or the summary of a valid text. */
export interface OwnChurnCheck {
  /** Id of the latest text sent (or about to be): answers to older texts are dropped. */
  latest: number;
  /** The latest valid answer (kept, dimmed, while the text has errors). */
  preview: ChurnPreviewOk | null;
  errors: ChurnError[];
  /** The latest request failed (server down): the check is out of date. */
  failure: unknown;
  pending: boolean;
}

export type OwnChurnEvent =
  | { type: "request"; id: number }
  | { type: "result"; id: number; preview: ChurnPreview }
  | { type: "failure"; id: number; error: unknown }
  /** A text that is not sent (blank, too large): nothing to show. */
  | { type: "clear"; id: number };

export const initialOwnChurnCheck: OwnChurnCheck = { latest: 0, preview: null, errors: [], failure: null, pending: false };

export function ownChurnReducer(state: OwnChurnCheck, event: OwnChurnEvent): OwnChurnCheck {
  if (event.type === "clear") return { ...initialOwnChurnCheck, latest: event.id };
  if (event.type === "request") return { ...state, latest: event.id, pending: true };
  if (event.id !== state.latest) return state; // the answer for a text the student typed past
  if (event.type === "failure") return { ...state, failure: event.error, pending: false };
  if (isPreviewOk(event.preview)) return { ...state, preview: event.preview, errors: [], failure: null, pending: false };
  return { ...state, errors: event.preview.errors, failure: null, pending: false };
}

/** "line 2, column 6: …", or "line 2: …" for a whole line (as the server's 400 says). */
export const churnErrorLabel = (e: ChurnError): string =>
  `line ${e.line}${e.column > 0 ? `, column ${e.column}` : ""}: ${e.message}`;

const seconds = (t: number): string => `${Number(t.toFixed(3)).toLocaleString("en")} s`;

/** "12 nodes, ends at 45 s": what the run will take (its distinct nodes, its `stop`). */
export function ownChurnSummary(preview: ChurnPreviewOk): string {
  const nodes = `${preview.nodes.toLocaleString("en")} node${preview.nodes === 1 ? "" : "s"}`;
  if (preview.end !== null) return `${nodes}, ends at ${seconds(preview.end)}`;
  return `${nodes}, no stop: the run lasts its Duration (last event at ${seconds(preview.duration)})`;
}
