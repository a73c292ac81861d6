import { DiffEditor } from "@monaco-editor/react";
import "./monaco-setup";

export interface CodeDiffProps {
  /** The older run's code (left). */
  original: string;
  /** This run's code (right). */
  modified: string;
  originalLabel: string;
  modifiedLabel: string;
}

/** Two runs' code side by side, read-only, changes marked (Monaco's diff editor, bundled). */
export default function MonacoDiff({ original, modified }: CodeDiffProps) {
  return (
    <DiffEditor height="420px" language="lua" original={original} modified={modified}
      options={{ readOnly: true, originalEditable: false, renderSideBySide: true, minimap: { enabled: false },
        scrollBeyondLastLine: false, automaticLayout: true }} />
  );
}
