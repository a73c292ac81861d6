// The only component that knows about Monaco. Monaco is loaded lazily so that the
// login and job pages do not download it.
import { lazy, Suspense } from "react";

export interface EditorMarker {
  line: number;
  /** 1-based: the marker runs from here to the end of the line; 0 or absent: the whole line. */
  column?: number;
  /** The last column marked (inclusive); absent: to the end of the line. */
  endColumn?: number;
  message: string;
  /** Absent: an error. */
  severity?: "error" | "warning";
  /** Shown after the message, e.g. "lint(W113)". */
  source?: string;
  code?: string;
}

/** SPLAY's churn scenarios (docs/churn.md), registered in monaco-setup.ts. */
export const CHURN_LANGUAGE = "splay-churn";

export interface CodeEditorProps {
  value: string;
  onChange: (value: string) => void;
  onSave?: () => void;
  /** Ctrl/Cmd+Enter: "live", Shift+Ctrl/Cmd+Enter: "sim"; absent: Monaco's own keys. */
  onRun?: (mode: "live" | "sim") => void;
  markers?: EditorMarker[];
  language?: string;
  /** Model path (e.g. "app.lua"); also keys the model's undo history. */
  path?: string;
}

const MonacoEditor = lazy(() => import("./monaco-editor"));

export function CodeEditor(props: CodeEditorProps) {
  return (
    <Suspense fallback={<div className="editor-loading">Loading editor…</div>}>
      <MonacoEditor {...props} />
    </Suspense>
  );
}
