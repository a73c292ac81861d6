import { useEffect, useReducer, useRef } from "react";
import { previewChurn } from "../api/preview-churn";
import { MAX_CHURN_BYTES, churnBytes } from "../lib/churn-choice";
import { initialOwnChurnCheck, ownChurnReducer } from "../lib/own-churn-check";

/** Quiet time after the last keystroke before the text is checked (as the Scenarios page). */
export const CHECK_DELAY_MS = 300;

/** The server's check of the student's own churn text, as they type: debounced, the previous
 * request aborted, older answers dropped. A blank or too large text is not sent. */
export function useOwnChurnCheck(text: string) {
  const [state, dispatch] = useReducer(ownChurnReducer, initialOwnChurnCheck);
  const nextId = useRef(0);

  useEffect(() => {
    const id = ++nextId.current;
    if (!text.trim() || churnBytes(text) > MAX_CHURN_BYTES) {
      dispatch({ type: "clear", id });
      return;
    }
    dispatch({ type: "request", id });
    const controller = new AbortController();
    const timer = setTimeout(() => {
      previewChurn(text, controller.signal).then(
        (preview) => dispatch({ type: "result", id, preview }),
        (error: unknown) => {
          if (!controller.signal.aborted) dispatch({ type: "failure", id, error });
        },
      );
    }, CHECK_DELAY_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [text]);

  return state;
}
