import type { Job, User } from "@/types/api";

const time = (iso: string | null | undefined) => {
  const value = iso ? Date.parse(iso) : NaN;
  return Number.isNaN(value) ? 0 : value;
};

/** Newest first: by created_at, then by id (the API does not promise an order). */
export function sortJobsNewestFirst(jobs: readonly Job[]): Job[] {
  return [...jobs].sort((a, b) => time(b.created_at) - time(a.created_at) || b.id - a.id);
}

/** Whether `user` owns `job` (`owner` may be the user's id or username). */
export function isOwnedBy(job: Job, user: Pick<User, "id" | "username"> | undefined): boolean {
  if (!user) return true;
  return job.owner === user.id || job.owner === user.username || String(job.owner) === String(user.id);
}

/** The user's own most recent job (instructors also see other people's jobs in the list). */
export function latestOwnJob(jobs: readonly Job[] | undefined, user: Pick<User, "id" | "username"> | undefined): Job | null {
  if (!jobs) return null;
  return sortJobsNewestFirst(jobs).find((job) => isOwnedBy(job, user)) ?? null;
}
