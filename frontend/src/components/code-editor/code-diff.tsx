// The diff editor, loaded lazily like the editor (code-editor.tsx): only a page that shows a
// diff downloads Monaco for it.
import { lazy, Suspense } from "react";
import type { CodeDiffProps } from "./monaco-diff";

const MonacoDiff = lazy(() => import("./monaco-diff"));

export function CodeDiff(props: CodeDiffProps) {
  return (
    <figure className="code-diff" data-testid="code-diff">
      <figcaption className="code-diff-labels">
        <span>{props.originalLabel}</span>
        <span>{props.modifiedLabel}</span>
      </figcaption>
      <Suspense fallback={<div className="editor-loading">Loading the diff…</div>}>
        <MonacoDiff {...props} />
      </Suspense>
    </figure>
  );
}
