// Completion, hover docs and signature help for Lua from the SPLAY API description
// (lib/splay-completion.ts does the work; this file only speaks Monaco). Registered once.
import type * as Monaco from "monaco-editor/editor/editor.api";
import { completionsAt, hoverAt, moduleAliases, signatureAt } from "@/lib/splay-completion";

type MonacoApi = typeof Monaco;

export function registerSplayLua(monaco: MonacoApi) {
  const kinds = {
    function: monaco.languages.CompletionItemKind.Function,
    field: monaco.languages.CompletionItemKind.Field,
    module: monaco.languages.CompletionItemKind.Module,
  };
  const markdown = (value: string) => ({ value });
  const beforeCursor = (model: Monaco.editor.ITextModel, position: Monaco.Position) =>
    model.getLineContent(position.lineNumber).slice(0, position.column - 1);

  monaco.languages.registerCompletionItemProvider("lua", {
    triggerCharacters: [".", ":", '"', "'"],
    provideCompletionItems(model, position) {
      const items = completionsAt(beforeCursor(model, position), moduleAliases(model.getValue()));
      const word = model.getWordUntilPosition(position);
      // a module name ("splay.rpc") holds a dot: replace from the opening quote on
      const line = beforeCursor(model, position);
      const quote = Math.max(line.lastIndexOf('"'), line.lastIndexOf("'"));
      return {
        suggestions: items.map((item) => ({
          label: item.label,
          kind: kinds[item.kind],
          detail: item.detail,
          documentation: markdown(item.documentation),
          insertText: item.insertText,
          range: {
            startLineNumber: position.lineNumber, endLineNumber: position.lineNumber,
            startColumn: item.kind === "module" ? quote + 2 : word.startColumn, endColumn: position.column,
          },
        })),
      };
    },
  });

  monaco.languages.registerHoverProvider("lua", {
    provideHover(model, position) {
      const hover = hoverAt(model.getLineContent(position.lineNumber), position.column, moduleAliases(model.getValue()));
      if (!hover) return null;
      return {
        range: new monaco.Range(position.lineNumber, hover.startColumn, position.lineNumber, hover.endColumn),
        contents: hover.contents.map(markdown),
      };
    },
  });

  monaco.languages.registerSignatureHelpProvider("lua", {
    signatureHelpTriggerCharacters: ["(", ","],
    signatureHelpRetriggerCharacters: [","],
    provideSignatureHelp(model, position) {
      const sig = signatureAt(beforeCursor(model, position), moduleAliases(model.getValue()));
      if (!sig) return null;
      return {
        value: {
          signatures: [{
            label: sig.label,
            documentation: markdown(sig.documentation),
            parameters: sig.params.map((p) => ({ label: p.label, documentation: p.documentation })),
          }],
          activeSignature: 0,
          activeParameter: sig.activeParameter,
        },
        dispose() {},
      };
    },
  });
}
