import { useEffect, useRef } from "react";
import { onRunRequest, type RunShortcut } from "@/lib/run-shortcut";

/** The run bar answers the editor's run shortcuts with `run(mode)`. */
export function useRunShortcut(run: (mode: RunShortcut) => void) {
  const runRef = useRef(run);
  runRef.current = run;
  useEffect(() => onRunRequest((mode) => runRef.current(mode)), []);
}
