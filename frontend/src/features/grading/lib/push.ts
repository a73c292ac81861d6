// A student's submissions pushed to their pages (/ws/submissions/, grading.live on the server):
// while the socket is open, a page learns that one of the user's own submissions changed status
// and refetches it, instead of polling every 2 s while a class waits for its grades. The polls
// stay, slower, for what the push does not cover: others' submissions (staff pages), and a push
// lost while the socket reconnects.
import type { Submission, SubmissionStatus } from "@/types/grading";
import { isPending } from "./report";

export const SUBMISSIONS_SOCKET = "/ws/submissions/";
/** Polls while a pending submission is not covered by the push. */
export const SUBMISSION_POLL_MS = 2000;
export const SUBMISSIONS_POLL_MS = 3000;
/** The back-up poll of a pending submission the push covers. */
export const PUSHED_POLL_MS = 20_000;

export interface SubmissionStatusMessage {
  type: "submission.status";
  submission: { id: number; course: number; assignment: string; status: SubmissionStatus };
}

/** The socket's first message: whose submissions it brings (the signed-in user). */
export interface SubmissionWatchMessage {
  type: "submission.watch";
  student: string;
}

let openFor: string | null = null; // the username whose pushes the open socket brings

/** The socket is open for `username`'s submissions (null: closed, or not known yet). */
export function setPushOpen(username: string | null): void {
  openFor = username;
}

/** Whether a change of `student`'s submission reaches this page by push. */
export const pushCovers = (student: string): boolean => openFor !== null && openFor === student;

/** The detail's poll: none once settled; slow while the push covers it. */
export function submissionPollMs(data: Pick<Submission, "status" | "student"> | undefined): number | false {
  if (data && !isPending(data.status)) return false;
  return data && pushCovers(data.student) ? PUSHED_POLL_MS : SUBMISSION_POLL_MS;
}

/** The list's poll: only while one is pending; slow when the push covers every pending one. */
export function submissionsPollMs(list: Pick<Submission, "status" | "student">[] | undefined): number | false {
  const pending = (list ?? []).filter((s) => isPending(s.status));
  if (pending.length === 0) return false;
  return pending.every((s) => pushCovers(s.student)) ? PUSHED_POLL_MS : SUBMISSIONS_POLL_MS;
}

/** A query of submissions: one submission (["submissions", id]) or an assignment's list
 * (["courses", course, "assignment", slug, "submissions"]): what a reconnection refetches. */
export const isSubmissionsQuery = (key: readonly unknown[]): boolean => key[0] === "submissions" || key[4] === "submissions";

/** Whose submissions a socket brings, from its first message (null: not that message). */
export function watchedBy(raw: unknown): string | null {
  const m = raw as Partial<SubmissionWatchMessage> | null;
  return m?.type === "submission.watch" && typeof m.student === "string" ? m.student : null;
}

/** What a message says changed: the submission and its assignment's list (null: not ours to read). */
export function changedBy(raw: unknown): SubmissionStatusMessage["submission"] | null {
  const m = raw as Partial<SubmissionStatusMessage> | null;
  const s = m?.submission;
  if (m?.type !== "submission.status" || !s) return null;
  if (!Number.isInteger(s.id) || !Number.isInteger(s.course) || typeof s.assignment !== "string") return null;
  return s;
}
