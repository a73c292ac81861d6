import { useMemo } from "react";
import { CodeEditor, type EditorMarker } from "@/components/code-editor/code-editor";
import type { DraftError } from "../lib/assignment-draft";

interface SpecEditorProps {
  value: string;
  onChange: (value: string) => void;
  onSave: () => void;
  path: string;
  /** The YAML's syntax error, found as it is typed. */
  error: DraftError | null;
}

/** assignment.yaml (docs/grading.md): YAML here, sent as JSON; the grader checks its meaning on Save. */
export function SpecEditor({ value, onChange, onSave, path, error }: SpecEditorProps) {
  const markers = useMemo<EditorMarker[]>(
    () => (error?.line ? [{ line: error.line, column: error.column, message: error.message }] : []),
    [error],
  );
  return (
    <div className="spec-edit">
      <p className="muted">
        assignment.yaml: runs and checks (docs/grading.md). The grader checks it when you save; comments are not kept
        (the spec is stored as JSON).
      </p>
      {error && (
        <p className="error-text" role="alert" data-testid="spec-error">
          YAML error, {error.message}
        </p>
      )}
      <div className="edit-code" data-testid="edit-code">
        <CodeEditor value={value} onChange={onChange} onSave={onSave} language="yaml" path={path} markers={markers} />
      </div>
    </div>
  );
}
