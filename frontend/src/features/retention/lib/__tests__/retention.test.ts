import { describe, expect, it } from "vitest";
import { formatBytes, parseRetentionInput, policySentence } from "../retention";

describe("formatBytes", () => {
  it("uses powers of 1024 with one decimal below ten", () => {
    expect(formatBytes(0)).toBe("0 B");
    expect(formatBytes(512)).toBe("512 B");
    expect(formatBytes(1536)).toBe("1.5 KB");
    expect(formatBytes(23 * 1024 * 1024)).toBe("23 MB");
    expect(formatBytes(1.25 * 1024 ** 3)).toBe("1.3 GB");
  });
  it("refuses nonsense", () => {
    expect(formatBytes(-1)).toBe("—");
    expect(formatBytes(Number.NaN)).toBe("—");
  });
});

describe("policySentence", () => {
  it("says both rules, and when one is off", () => {
    expect(policySentence(30, 100)).toBe("kept 30 days after a job ends, at most 100 MB per job");
    expect(policySentence(1, 0)).toBe("kept 1 day after a job ends, no size limit");
    expect(policySentence(0, 5)).toBe("kept with no age limit, at most 5 MB per job");
  });
});

describe("parseRetentionInput", () => {
  it("takes whole numbers, 0 meaning no limit", () => {
    expect(parseRetentionInput("7", " 0 ")).toEqual({ ok: { retention_days: 7, retention_max_mb_per_job: 0 } });
  });
  it("names the field that is wrong", () => {
    expect(parseRetentionInput("-1", "5")).toEqual({ error: "Days: a whole number from 0 (no age limit) to 3650." });
    expect(parseRetentionInput("1.5", "5")).toHaveProperty("error");
    expect(parseRetentionInput("3651", "5")).toHaveProperty("error");
    expect(parseRetentionInput("3", "ten")).toEqual({
      error: "MB per job: a whole number from 0 (no size limit) to 100000.",
    });
  });
});
