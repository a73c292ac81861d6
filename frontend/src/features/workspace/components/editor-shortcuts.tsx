/** The editor's keys, in words (the shortcuts panel of the editor's toolbar). */
const SHORTCUTS: [string, string][] = [
  ["Ctrl/⌘+Enter", "run with the run bar's settings"],
  ["Shift+Ctrl/⌘+Enter", "simulate with the run bar's settings"],
  ["Ctrl/⌘+S", "save now"],
  ["Ctrl+Space", "complete (SPLAY's functions after events., rpc., misc., log., job.)"],
  ["Esc", "leave the editor (then Tab goes on to the run bar)"],
  ["Ctrl+M", "Tab leaves the editor instead of indenting (again: indents)"],
  ["F8", "go to the next error or warning"],
];

export function EditorShortcuts() {
  return (
    <details className="editor-shortcuts" data-testid="editor-shortcuts">
      <summary>Shortcuts</summary>
      <dl>
        {SHORTCUTS.map(([keys, what]) => (
          <div key={keys}>
            <dt><kbd>{keys}</kbd></dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
    </details>
  );
}
