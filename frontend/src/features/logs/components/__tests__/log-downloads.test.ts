import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { LogDownloads } from "../log-downloads";

describe("LogDownloads", () => {
  it("links both buttons to the server's whole-log download of this job, with the file names it sends", () => {
    const html = renderToStaticMarkup(createElement(LogDownloads, { jobId: 42 }));
    const links = [...html.matchAll(/<a [^>]*href="([^"]+)" download="([^"]+)"[^>]*>([^<]+)<\/a>/g)].map((m) => m.slice(1));
    expect(links).toEqual([
      ["/api/jobs/42/logs/download/?format=jsonl", "job-42-logs.jsonl", "Download .jsonl"],
      ["/api/jobs/42/logs/download/?format=text", "job-42-logs.txt", "Download .txt"],
    ]);
  });
});
