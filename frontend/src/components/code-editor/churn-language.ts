// SPLAY's churn language (docs/churn.md) for Monaco: colours only; the server's preview finds
// the errors (sandbox/churn.py is the one parser).
import type * as Monaco from "monaco-editor/editor/editor.api";
import { CHURN_LANGUAGE } from "./code-editor";

const KEYWORDS = [
  "at", "from", "to", "join", "add", "increase", "inc", "leave", "remove", "decrease", "dec",
  "const", "keep", "set", "maximum", "max", "population", "pop", "replacement", "ratio", "repratio",
  "stop", "end", "churn", "per", "each", "and", "gracefully", "partition", "heal", "loss", "latency",
  "default",
];
const UNITS = ["s", "sec", "second", "seconds", "m", "min", "minute", "minutes", "h", "hour", "hours", "d", "day", "days"];

const language: Monaco.languages.IMonarchLanguage = {
  ignoreCase: true, // keywords and units are case-insensitive
  defaultToken: "",
  tokenPostfix: ".churn",
  keywords: KEYWORDS,
  units: UNITS,
  brackets: [{ open: "(", close: ")", token: "delimiter.parenthesis" }],
  tokenizer: {
    root: [
      { include: "@whitespace" },
      [/rep\.ratio\b/, "keyword"],
      // the factor of "latency x2"
      [/x(?=[\d.])/, "keyword.operator"],
      // "30s" is a number then a unit: numbers stop at the first letter
      [/\d*\.\d+|\d+/, "number"],
      [/%/, "number"],
      [/[a-z_][\w]*/, { cases: { "@keywords": "keyword", "@units": "type", "@default": "identifier" } }],
      [/[()]/, "@brackets"],
      [/[+\-*/,]/, "operator"],
    ],
    whitespace: [
      [/\s+/, ""],
      [/\/\*/, "comment", "@comment"],
      [/(#|\/\/).*$/, "comment"],
    ],
    // "/* … */" may span lines
    comment: [
      [/[^/*]+/, "comment"],
      [/\*\//, "comment", "@pop"],
      [/[/*]/, "comment"],
    ],
  },
};

const configuration: Monaco.languages.LanguageConfiguration = {
  comments: { lineComment: "#", blockComment: ["/*", "*/"] },
  brackets: [["(", ")"]],
  autoClosingPairs: [{ open: "(", close: ")" }],
  surroundingPairs: [{ open: "(", close: ")" }],
};

/** Registers `splay-churn` once (a second call, e.g. after a hot reload, does nothing). */
export function registerChurnLanguage(monaco: typeof Monaco): void {
  if (monaco.languages.getLanguages().some((l) => l.id === CHURN_LANGUAGE)) return;
  monaco.languages.register({ id: CHURN_LANGUAGE, extensions: [".churn"], aliases: ["SPLAY churn", "churn"] });
  monaco.languages.setMonarchTokensProvider(CHURN_LANGUAGE, language);
  monaco.languages.setLanguageConfiguration(CHURN_LANGUAGE, configuration);
}
