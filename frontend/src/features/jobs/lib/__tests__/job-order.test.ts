import { describe, expect, it } from "vitest";
import type { Job } from "@/types/api";
import { latestOwnJob, sortJobsNewestFirst } from "../job-order";

const job = (id: number, created_at: string, owner: number | string = 1) =>
  ({ id, created_at, owner, state: "ENDED" }) as Job;

describe("job order", () => {
  it("sorts newest first by creation time, then id", () => {
    const jobs = [job(1, "2026-01-01T10:00:00Z"), job(3, "2026-01-01T09:00:00Z"), job(2, "2026-01-01T10:00:00Z")];
    expect(sortJobsNewestFirst(jobs).map((j) => j.id)).toEqual([2, 1, 3]);
  });

  it("picks the user's own latest job (owner as id or username)", () => {
    const jobs = [job(5, "2026-01-02T00:00:00Z", 2), job(4, "2026-01-01T00:00:00Z", "ada")];
    expect(latestOwnJob(jobs, { id: 1, username: "ada" })?.id).toBe(4);
    expect(latestOwnJob(jobs, { id: 2, username: "bob" })?.id).toBe(5);
    expect(latestOwnJob([], { id: 1, username: "ada" })).toBeNull();
  });
});
