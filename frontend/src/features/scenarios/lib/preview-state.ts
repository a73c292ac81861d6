import type { EditorMarker } from "@/components/code-editor/code-editor";
import { isPreviewOk, type ChurnError, type ChurnPreview, type ChurnPreviewOk } from "@/types/api";

/** The live preview: the last good preview stays drawn while the latest text has errors. */
export interface PreviewState {
  /** Id of the latest text sent (or about to be): answers to older ones are dropped. */
  latest: number;
  /** The latest answer without errors. */
  preview: ChurnPreviewOk | null;
  /** The latest answer's errors (empty when it was fine). */
  errors: ChurnError[];
  /** The latest request failed (server down, 500): the preview is out of date. */
  failure: unknown;
  /** The text changed and its answer has not come yet. */
  pending: boolean;
}

export type PreviewEvent =
  | { type: "request"; id: number }
  | { type: "result"; id: number; preview: ChurnPreview }
  | { type: "failure"; id: number; error: unknown };

export const initialPreviewState: PreviewState = { latest: 0, preview: null, errors: [], failure: null, pending: false };

export function previewReducer(state: PreviewState, event: PreviewEvent): PreviewState {
  if (event.type === "request") return { ...state, latest: event.id, pending: true };
  if (event.id !== state.latest) return state; // an answer for a text the user has typed past
  if (event.type === "failure") return { ...state, failure: event.error, pending: false };
  const preview = event.preview;
  if (isPreviewOk(preview)) return { ...state, preview, errors: [], failure: null, pending: false };
  return { ...state, errors: preview.errors, failure: null, pending: false };
}

/** "line 2, column 6: …" (as the server's 400 on save), or "line 2: …" for a whole line. */
export const errorLabel = (error: ChurnError): string =>
  `line ${error.line}${error.column > 0 ? `, column ${error.column}` : ""}: ${error.message}`;

export const errorMarkers = (errors: ChurnError[]): EditorMarker[] =>
  errors.map((e) => ({ line: e.line, column: e.column, message: e.message }));
