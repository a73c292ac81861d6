import { useEffect, useReducer, useRef } from "react";
import { previewScenario } from "../api/preview-scenario";
import { initialPreviewState, previewReducer } from "../lib/preview-state";

/** Quiet time after the last keystroke before the text is sent. */
export const PREVIEW_DELAY_MS = 300;

/** The server's preview of `text` (null: nothing to preview yet), refreshed as the user types:
 * debounced, the previous request aborted, answers to older texts dropped (lib/preview-state.ts). */
export function useChurnPreview(text: string | null) {
  const [state, dispatch] = useReducer(previewReducer, initialPreviewState);
  const nextId = useRef(0);

  useEffect(() => {
    if (text === null) return;
    const id = ++nextId.current;
    dispatch({ type: "request", id });
    const controller = new AbortController();
    const timer = setTimeout(() => {
      previewScenario(text, controller.signal).then(
        (preview) => dispatch({ type: "result", id, preview }),
        (error: unknown) => {
          if (!controller.signal.aborted) dispatch({ type: "failure", id, error });
        },
      );
    }, PREVIEW_DELAY_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [text]);

  return state;
}
