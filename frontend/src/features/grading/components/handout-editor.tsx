import { useDeferredValue, useMemo } from "react";
import { CodeEditor } from "@/components/code-editor/code-editor";
import { renderMarkdown } from "../lib/markdown";

interface HandoutEditorProps {
  value: string;
  onChange: (value: string) => void;
  onSave: () => void;
  path: string;
}

/** The handout's markdown beside its live preview, rendered as students get it (sanitised). */
export function HandoutEditor({ value, onChange, onSave, path }: HandoutEditorProps) {
  const deferred = useDeferredValue(value);
  const html = useMemo(() => renderMarkdown(deferred), [deferred]);
  return (
    <div className="handout-edit">
      <div className="edit-code" data-testid="edit-code">
        <CodeEditor value={value} onChange={onChange} onSave={onSave} language="markdown" path={path} />
      </div>
      {/* renderMarkdown keeps only inert HTML (DOMPurify), as on the assignment page. */}
      <div className="card markdown handout-preview" data-testid="handout-preview" dangerouslySetInnerHTML={{ __html: html }} />
    </div>
  );
}
