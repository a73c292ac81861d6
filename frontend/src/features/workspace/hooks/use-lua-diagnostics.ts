import { useEffect, useState } from "react";
import type { EditorMarker } from "@/components/code-editor/code-editor";
import { diagnosticMarkers } from "../lib/lua-markers";

/** Quiet time after a keystroke before the code is parsed and linted again. */
export const DIAGNOSE_DELAY_MS = 250;

/** Diagnostics while typing: recomputed once the text has been still for DIAGNOSE_DELAY_MS. */
export function useLuaDiagnostics(code: string | null): EditorMarker[] {
  const [markers, setMarkers] = useState<EditorMarker[]>([]);
  useEffect(() => {
    if (code === null) return;
    const timer = setTimeout(() => setMarkers(diagnosticMarkers(code)), DIAGNOSE_DELAY_MS);
    return () => clearTimeout(timer);
  }, [code]);
  return markers;
}
