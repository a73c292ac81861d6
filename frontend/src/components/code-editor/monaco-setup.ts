// Bundled Monaco: nothing loads from a CDN (class labs have no internet).
// Only the core editor API, the contributions we use, the Lua, Markdown and YAML grammars (the
// assignment editor), our churn grammar and SPLAY's completion, hover and signature help are imported.
import "./monaco-environment";
import { loader } from "@monaco-editor/react";
import * as monaco from "monaco-editor/editor/editor.api";

import "monaco-editor/features/codicon/register";
import "monaco-editor/features/codeEditor/register";
import "monaco-editor/features/bracketMatching/register";
import "monaco-editor/features/caretOperations/register";
import "monaco-editor/features/clipboard/register";
import "monaco-editor/features/comment/register";
import "monaco-editor/features/contextmenu/register";
import "monaco-editor/features/cursorUndo/register";
import "monaco-editor/features/find/register";
import "monaco-editor/features/folding/register";
import "monaco-editor/features/gotoError/register";
import "monaco-editor/features/hover/register";
import "monaco-editor/features/indentation/register";
import "monaco-editor/features/linesOperations/register";
import "monaco-editor/features/multicursor/register";
import "monaco-editor/features/parameterHints/register";
import "monaco-editor/features/snippet/register";
import "monaco-editor/features/suggest/register";
// The suggest widget itself: features/suggest/register brings only its inline part (Monaco 0.57).
import "monaco-editor/editor/contrib/suggest/browser/suggestController";
import "monaco-editor/features/toggleTabFocusMode/register";
import "monaco-editor/features/wordHighlighter/register";
import "monaco-editor/features/wordOperations/register";
import "monaco-editor/languages/definitions/lua/register";
import "monaco-editor/languages/definitions/markdown/register";
import "monaco-editor/languages/definitions/yaml/register";
import { registerChurnLanguage } from "./churn-language";
import { registerSplayLua } from "./splay-lua";

registerChurnLanguage(monaco);
registerSplayLua(monaco);
loader.config({ monaco });
// window.monaco for browser tests. MonacoEnvironment.globalAPI sets it only when editor.api runs
// after monaco-environment.ts, an order the bundler's chunks do not promise (Vite's bundler put
// it after once the Markdown and YAML grammars were added).
(window as unknown as { monaco?: typeof monaco }).monaco ??= monaco;

export { monaco };
