import { api } from "@/lib/api-client";
import type { Workspace, WorkspaceFile } from "@/types/api";

export interface UpdateWorkspaceInput {
  name: string;
  files: WorkspaceFile[];
}

export const updateWorkspace = (id: number, input: UpdateWorkspaceInput): Promise<Workspace> =>
  api.put<Workspace>(`/api/workspaces/${id}/`, input);

/** The PUT body for `workspace` with `path` set to `content` (other files unchanged). */
export function withFileContent(workspace: Workspace, path: string, content: string): UpdateWorkspaceInput {
  const exists = workspace.files.some((file) => file.path === path);
  const files = exists
    ? workspace.files.map((file) => (file.path === path ? { ...file, content } : file))
    : [...workspace.files, { path, content }];
  return { name: workspace.name, files };
}

/** What a workspace may hold in all (backend workspaces.services.MAX_TOTAL_BYTES): checked here
 * before sending, so a large paste gets the limit in words instead of a request the server cuts. */
export const WORKSPACE_MAX_BYTES = 1024 * 1024;

const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** Why `input` cannot be saved, in the words the page shows, or null when it fits. */
export function workspaceTooLarge(input: UpdateWorkspaceInput): string | null {
  const encoder = new TextEncoder();
  const total = input.files.reduce((sum, file) => sum + encoder.encode(file.content).length, 0);
  if (total <= WORKSPACE_MAX_BYTES) return null;
  return `not saved: the workspace would hold ${megabytes(total)}, more than its limit of ` +
    `${megabytes(WORKSPACE_MAX_BYTES)}; your text stays in the editor`;
}
