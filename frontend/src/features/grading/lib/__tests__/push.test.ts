import { afterEach, describe, expect, it } from "vitest";
import { submissionQueryKey } from "../../api/get-submission";
import { submissionsQueryKey } from "../../api/get-submissions";
import {
  changedBy,
  isSubmissionsQuery,
  PUSHED_POLL_MS,
  pushCovers,
  setPushOpen,
  SUBMISSION_POLL_MS,
  submissionPollMs,
  SUBMISSIONS_POLL_MS,
  submissionsPollMs,
  watchedBy,
} from "../push";

afterEach(() => setPushOpen(null));

describe("submission pushes", () => {
  it("cover only the signed-in user's own submissions, while the socket is open", () => {
    expect(pushCovers("ana")).toBe(false);
    setPushOpen("ana");
    expect([pushCovers("ana"), pushCovers("bo")]).toEqual([true, false]);
    setPushOpen(null);
    expect(pushCovers("ana")).toBe(false);
  });

  it("slow the detail's poll only for a pending submission they cover", () => {
    expect(submissionPollMs(undefined)).toBe(SUBMISSION_POLL_MS);
    expect(submissionPollMs({ status: "running", student: "ana" })).toBe(SUBMISSION_POLL_MS);
    setPushOpen("ana");
    expect(submissionPollMs({ status: "running", student: "ana" })).toBe(PUSHED_POLL_MS);
    expect(submissionPollMs({ status: "queued", student: "bo" })).toBe(SUBMISSION_POLL_MS); // a TA's view of bo's
    expect(submissionPollMs({ status: "graded", student: "ana" })).toBe(false);
    expect(submissionPollMs({ status: "error", student: "bo" })).toBe(false);
  });

  it("slow the list's poll only when every pending submission in it is covered", () => {
    const graded = { status: "graded" as const, student: "bo" };
    expect(submissionsPollMs([graded])).toBe(false);
    expect(submissionsPollMs([{ status: "queued", student: "ana" }, graded])).toBe(SUBMISSIONS_POLL_MS);
    setPushOpen("ana");
    expect(submissionsPollMs([{ status: "queued", student: "ana" }, graded])).toBe(PUSHED_POLL_MS);
    expect(submissionsPollMs([{ status: "queued", student: "ana" }, { status: "running", student: "bo" }])).toBe(
      SUBMISSIONS_POLL_MS,
    );
    expect(submissionsPollMs(undefined)).toBe(false);
  });

  it("read a status message, and nothing else", () => {
    const ok = { id: 7, course: 1, assignment: "chord", status: "graded" };
    expect(changedBy({ type: "submission.status", submission: ok })).toEqual(ok);
    expect(changedBy({ type: "job.state", submission: ok })).toBeNull();
    expect(changedBy({ type: "submission.status" })).toBeNull();
    expect(changedBy({ type: "submission.status", submission: { ...ok, id: "7" } })).toBeNull();
    expect(changedBy({ type: "submission.status", submission: { ...ok, assignment: 3 } })).toBeNull();
    expect(changedBy(null)).toBeNull();
    expect(changedBy("text")).toBeNull();
    expect(watchedBy({ type: "submission.watch", student: "ana" })).toBe("ana");
    expect(watchedBy({ type: "submission.watch" })).toBeNull();
    expect(watchedBy({ type: "submission.status", student: "ana" })).toBeNull();
  });

  it("refetch, after a reconnection, the queries of submissions the API keys name", () => {
    expect(isSubmissionsQuery(submissionQueryKey(7))).toBe(true);
    expect(isSubmissionsQuery(submissionsQueryKey(1, "chord"))).toBe(true);
    expect(isSubmissionsQuery(["courses", 1, "assignment", "chord"])).toBe(false);
    expect(isSubmissionsQuery(["jobs", 7])).toBe(false);
  });
});
