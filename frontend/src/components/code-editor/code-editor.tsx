// The only component that knows about Monaco. Monaco is loaded lazily so that the
// login and job pages do not download it.
import { lazy, Suspense } from "react";

export interface EditorMarker {
  line: number;
  message: string;
}

export interface CodeEditorProps {
  value: string;
  onChange: (value: string) => void;
  onSave?: () => void;
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
