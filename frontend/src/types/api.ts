// Wire types from docs/architecture.md (REST API and /ws/jobs/<id>/).

export type Role = string; // e.g. "student", "ta", "instructor"

export interface User {
  id: number;
  username: string;
  role: Role;
}

export const JOB_STATES = [
  "QUEUED",
  "REGISTERING",
  "RUNNING",
  "ENDED",
  "KILLED",
  "FAILED",
  "NO_RESOURCES",
] as const;
export type JobState = (typeof JOB_STATES)[number];

export const TERMINAL_JOB_STATES: readonly JobState[] = ["ENDED", "KILLED", "FAILED", "NO_RESOURCES"];

export type InstanceState = "RESERVED" | "RUNNING" | "ENDED" | "FAILED" | "KILLED" | "LOST";

export interface Instance {
  node: number;
  daemon: number | string | null;
  port: number | null;
  state: InstanceState;
  exit_reason: string | null;
}

export interface Job {
  id: number;
  name: string;
  owner: number | string;
  state: JobState;
  reason: string | null;
  error_line: number | null;
  nodes: number;
  duration: number;
  filename: string;
  code?: string;
  /** The emulated network, e.g. "king, loss 1%" ("lan" when none). */
  network?: string;
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
  instances?: Instance[];
}

export type LogLevel = "debug" | "info" | "warning" | "error" | "print" | "metric";
export const LOG_LEVELS: readonly LogLevel[] = ["debug", "info", "warning", "error", "print", "metric"];

export interface LogLine {
  id: number;
  node: number;
  seq: number;
  t: number; // unix seconds (float)
  level: LogLevel;
  text: string;
}

export interface LogPage {
  lines: LogLine[];
  next_after: number | null;
}

export interface WorkspaceFile {
  path: string;
  content: string;
}

export interface WorkspaceSummary {
  id: number;
  name: string;
}

export interface Workspace extends WorkspaceSummary {
  files: WorkspaceFile[];
}

/** A list endpoint may answer a bare array or a DRF page; both are accepted. */
export type ListResponse<T> = T[] | { results: T[]; count?: number; next?: string | null };

export function listItems<T>(data: ListResponse<T>): T[] {
  return Array.isArray(data) ? data : data.results;
}

/** Browser websocket messages on /ws/jobs/<id>/. */
export type JobSocketMessage =
  | { type: "job.state"; job: Partial<Job> & { id: number } }
  | { type: "log.lines"; lines: LogLine[] };
