import type { SyntaxErrorMarker } from "../lib/error-marker";

export function EditorErrorBanner({ marker }: { marker: SyntaxErrorMarker }) {
  return (
    <div className="editor-error" role="alert" data-testid="editor-error" data-line={marker.line}>
      <strong>Syntax error on line {marker.line}:</strong> <span className="editor-error-message">{marker.message}</span>
    </div>
  );
}
