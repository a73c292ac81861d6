// Must run before monaco-editor is evaluated (it reads MonacoEnvironment at load time),
// so monaco-setup.ts imports this module first.
import EditorWorker from "monaco-editor/editor/editor.worker?worker";

declare global {
  interface Window {
    MonacoEnvironment?: { getWorker(workerId: string, label: string): Worker; globalAPI?: boolean };
  }
}

// Lua needs only the generic editor worker (diffing, word-based suggestions), bundled by Vite.
// globalAPI exposes window.monaco, which browser tests may use to read or set the model.
self.MonacoEnvironment = { getWorker: () => new EditorWorker(), globalAPI: true };
