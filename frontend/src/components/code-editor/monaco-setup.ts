// Bundled Monaco: nothing loads from a CDN (class labs have no internet).
// Only the core editor API, the contributions we use, the Lua grammar and our churn grammar are imported.
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
import "monaco-editor/features/snippet/register";
import "monaco-editor/features/suggest/register";
import "monaco-editor/features/wordHighlighter/register";
import "monaco-editor/features/wordOperations/register";
import "monaco-editor/languages/definitions/lua/register";
import { registerChurnLanguage } from "./churn-language";

registerChurnLanguage(monaco);
loader.config({ monaco });

export { monaco };
