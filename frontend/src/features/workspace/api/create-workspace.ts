import { api } from "@/lib/api-client";
import type { Workspace, WorkspaceFile } from "@/types/api";

/** POST /api/workspaces/ {name, files}: the user's own workspace of that name, created with
 * `files` the first time (201), returned unchanged afterwards (200). */
export const ensureWorkspace = (name: string, files: WorkspaceFile[]): Promise<Workspace> =>
  api.post<Workspace>("/api/workspaces/", { name, files });

export const namedWorkspaceQueryKey = (name: string) => ["workspaces", "named", name] as const;
