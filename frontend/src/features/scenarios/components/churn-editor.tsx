import { useMemo } from "react";
import { CHURN_LANGUAGE, CodeEditor } from "@/components/code-editor/code-editor";
import type { ChurnError } from "@/types/api";
import { errorMarkers } from "../lib/preview-state";

interface ChurnEditorProps {
  text: string;
  onChange: (text: string) => void;
  /** The latest preview's errors, marked from their column to the end of their line. */
  errors: ChurnError[];
  onSave?: () => void;
  /** Model path: a new one per opened scenario keeps undo histories apart. */
  path: string;
}

export function ChurnEditor({ text, onChange, errors, onSave, path }: ChurnEditorProps) {
  const markers = useMemo(() => errorMarkers(errors), [errors]);
  return (
    <section className="churn-editor-panel" aria-label="Scenario text">
      <div className="editor" data-testid="churn-editor">
        <CodeEditor value={text} onChange={onChange} onSave={onSave} markers={markers} language={CHURN_LANGUAGE} path={path} />
      </div>
    </section>
  );
}
