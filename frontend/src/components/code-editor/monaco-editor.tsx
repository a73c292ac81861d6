import Editor, { type OnMount } from "@monaco-editor/react";
import { useEffect, useRef } from "react";
import type { CodeEditorProps } from "./code-editor";
import { focusAfter } from "./focus-after";
import { markerRange } from "./marker-range";
import { monaco } from "./monaco-setup";

const MARKER_OWNER = "splaylab";

type StandaloneEditor = Parameters<OnMount>[0];

// Esc leaves the editor only when no widget of its own (suggestions, find, hints) takes it.
const ESC_LEAVES = "!suggestWidgetVisible && !findWidgetVisible && !parameterHintsVisible && !inSnippetMode" +
  " && !editorHasMultipleSelections && !markersNavigationVisible && !renameInputVisible";

export default function MonacoEditor({ value, onChange, onSave, onRun, markers, language = "lua", path }: CodeEditorProps) {
  const editorRef = useRef<StandaloneEditor | null>(null);
  const onSaveRef = useRef(onSave);
  onSaveRef.current = onSave;
  const onRunRef = useRef(onRun);
  onRunRef.current = onRun;

  const applyMarkers = () => {
    const model = editorRef.current?.getModel();
    if (!model) return;
    const lineCount = model.getLineCount();
    monaco.editor.setModelMarkers(
      model,
      MARKER_OWNER,
      (markers ?? []).map((marker) => ({
        severity: marker.severity === "warning" ? monaco.MarkerSeverity.Warning : monaco.MarkerSeverity.Error,
        message: marker.message,
        source: marker.source,
        code: marker.code,
        ...markerRange(marker, lineCount, (line) => model.getLineMaxColumn(line)),
      })),
    );
  };

  // Re-apply when the markers change (or the model content changes under them).
  useEffect(applyMarkers, [markers, value]);

  const handleMount: OnMount = (editor) => {
    editorRef.current = editor;
    editor.addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyCode.KeyS, () => onSaveRef.current?.());
    if (onRunRef.current) {
      editor.addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyCode.Enter, () => onRunRef.current?.("live"));
      editor.addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyMod.Shift | monaco.KeyCode.Enter, () => onRunRef.current?.("sim"));
    }
    // Keyboard users get out: Esc moves on to what follows the editor (Ctrl+M, Monaco's own,
    // makes Tab leave it instead of indenting).
    editor.addCommand(monaco.KeyCode.Escape, () => {
      const container = editor.getContainerDomNode();
      if (!focusAfter(container)) (document.activeElement as HTMLElement | null)?.blur();
    }, ESC_LEAVES);
    applyMarkers();
  };

  return (
    <Editor
      value={value}
      language={language}
      path={path}
      onChange={(next) => onChange(next ?? "")}
      onMount={handleMount}
      loading={<div className="editor-loading">Loading editor…</div>}
      options={{
        automaticLayout: true,
        fontSize: 14,
        minimap: { enabled: false },
        scrollBeyondLastLine: false,
        tabSize: 2,
        renderWhitespace: "selection",
        glyphMargin: true,
      }}
    />
  );
}
