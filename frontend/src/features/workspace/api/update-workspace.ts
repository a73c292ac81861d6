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
