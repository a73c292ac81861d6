import { useMemo, useState } from "react";
import { CodeEditor, type EditorMarker } from "@/components/code-editor/code-editor";
import { ErrorMessage } from "@/components/ui/error-message";
import { Spinner } from "@/components/ui/spinner";
import { requestRun } from "@/lib/run-shortcut";
import type { Job } from "@/types/api";
import { useLuaDiagnostics } from "../hooks/use-lua-diagnostics";
import type { WorkspaceFileState } from "../hooks/use-workspace-file";
import { errorMarkerFor } from "../lib/error-marker";
import { EditorErrorBanner } from "./editor-error-banner";
import { EditorShortcuts } from "./editor-shortcuts";
import { SaveStatus } from "./save-status";

interface WorkspaceEditorProps {
  file: WorkspaceFileState;
  /** The job whose syntax error (if any) is marked in the editor. */
  errorJob: Job | null;
  /** True when the user explicitly asked for this job ("show in editor"). */
  explicitJob: boolean;
}

export function WorkspaceEditor({ file, errorJob, explicitJob }: WorkspaceEditorProps) {
  const [dismissedJobId, setDismissedJobId] = useState<number | null>(null);
  const { code, setCode, save } = file;

  const marker = useMemo(
    () =>
      code === null ? null : errorMarkerFor(errorJob, { code, dismissedJobId, requireSameCode: !explicitJob }),
    [code, errorJob, dismissedJobId, explicitJob],
  );
  const diagnostics = useLuaDiagnostics(code);
  // The failed job's own words (luajit's) stand for the syntax error while its code is shown.
  const markers = useMemo<EditorMarker[]>(() => (marker
    ? [{ line: marker.line, message: marker.message }, ...diagnostics.filter((d) => d.source !== "syntax")]
    : diagnostics), [marker, diagnostics]);

  if (file.error) return <ErrorMessage error={file.error} title="Cannot load your workspace." />;
  if (file.noWorkspace) return <div className="error-box">You have no workspace yet. Ask your instructor.</div>;
  if (code === null) return <Spinner label="Loading workspace…" />;

  const onChange = (next: string) => {
    if (marker && next !== code) setDismissedJobId(marker.jobId);
    setCode(next);
  };
  const saveNow = () => void save().catch(() => undefined);

  return (
    <section className="workspace-editor" aria-label="Code editor">
      <div className="editor-toolbar">
        <span className="filename">{file.filename}</span>
        <SaveStatus state={file.saveState} error={file.saveError} onSave={saveNow} />
        <EditorShortcuts />
      </div>
      {marker && <EditorErrorBanner marker={marker} />}
      <div className="editor" data-testid="editor">
        <CodeEditor value={code} onChange={onChange} onSave={saveNow} onRun={requestRun} markers={markers}
          path={file.filename} />
      </div>
    </section>
  );
}
