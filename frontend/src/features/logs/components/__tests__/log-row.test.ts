import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { LogLine } from "@/types/api";
import { LogRow } from "../log-row";

const line = (t: number): LogLine => ({ id: 1, node: 2, seq: 1, t, level: "print", text: "hello" });
const stamp = (html: string) => /<span class="log-time"[^>]*>([^<]*)<\/span>/.exec(html)?.[1];

describe("LogRow's time", () => {
  it("shows a simulated job's line at its virtual time from the job's start, not a time of day", () => {
    // started at 10:00:00 UTC, ended a real second later; the node printed at 7.25 virtual s
    const started = Date.parse("2026-11-26T10:00:00Z") / 1000;
    const html = renderToStaticMarkup(createElement(LogRow, { line: line(started + 7.25), virtualOrigin: started }));
    expect(stamp(html)).toBe("+00:07.250");
  });

  it("shows a live job's line at its time of day", () => {
    const html = renderToStaticMarkup(createElement(LogRow, { line: line(Date.parse("2026-11-26T10:00:00Z") / 1000) }));
    expect(stamp(html)).toMatch(/^\d{2}:\d{2}:\d{2}\.000$/);
  });
});

describe("LogRow's search marks", () => {
  it("marks each match of the search in the text, whatever its case", () => {
    const row: LogLine = { id: 1, node: 2, seq: 1, t: 0, level: "print", text: "Lookup <k> then lookup" };
    const html = renderToStaticMarkup(createElement(LogRow, { line: row, query: "LOOKUP" }));
    expect(/<span class="log-text">(.*?)<\/span>/.exec(html)?.[1]).toBe(
      '<mark data-testid="log-match">Lookup</mark> &lt;k&gt; then <mark data-testid="log-match">lookup</mark>',
    );
  });
});
