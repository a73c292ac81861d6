import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState } from "react";
import type { Workspace } from "@/types/api";
import { useWorkspace, workspaceQueryKey } from "../api/get-workspace";
import { useWorkspaces } from "../api/get-workspaces";
import { updateWorkspace, withFileContent } from "../api/update-workspace";

export type SaveState = "saved" | "unsaved" | "saving" | "error";

export const AUTOSAVE_DELAY_MS = 1000;
export const MAIN_FILE = "app.lua";

function mainFile(workspace: Workspace) {
  return workspace.files.find((file) => file.path === MAIN_FILE) ?? workspace.files[0] ?? { path: MAIN_FILE, content: "" };
}

/** Loads the user's first workspace's app.lua and keeps it saved (debounced autosave). */
export function useWorkspaceFile() {
  const queryClient = useQueryClient();
  const workspacesQuery = useWorkspaces();
  const workspaceId = workspacesQuery.data?.[0]?.id;
  const workspaceQuery = useWorkspace(workspaceId);
  const workspace = workspaceQuery.data;

  const [code, setCode] = useState<string | null>(null);
  const [filename, setFilename] = useState(MAIN_FILE);
  const [saveState, setSaveState] = useState<SaveState>("saved");
  const [saveError, setSaveError] = useState<unknown>(null);
  const codeRef = useRef<string | null>(null);
  const savedRef = useRef<string | null>(null);
  const inflightRef = useRef<Promise<void> | null>(null);
  codeRef.current = code;

  useEffect(() => {
    if (!workspace || codeRef.current !== null) return;
    const file = mainFile(workspace);
    savedRef.current = file.content;
    setFilename(file.path);
    setCode(file.content);
  }, [workspace]);

  const save = useCallback(async (): Promise<void> => {
    while (inflightRef.current) await inflightRef.current.catch(() => undefined);
    const snapshot = codeRef.current;
    const current = workspaceId === undefined ? undefined : queryClient.getQueryData<Workspace>(workspaceQueryKey(workspaceId));
    if (snapshot === null || !current || workspaceId === undefined) return;
    if (snapshot === savedRef.current) {
      setSaveState("saved");
      return;
    }
    setSaveState("saving");
    const body = withFileContent(current, filename, snapshot);
    const request = updateWorkspace(workspaceId, body).then(
      (updated) => {
        savedRef.current = snapshot;
        queryClient.setQueryData(workspaceQueryKey(workspaceId), updated?.files ? updated : { ...current, ...body });
        setSaveError(null);
        setSaveState(codeRef.current === snapshot ? "saved" : "unsaved");
      },
      (error: unknown) => {
        setSaveError(error);
        setSaveState("error");
        throw error;
      },
    );
    inflightRef.current = request.finally(() => {
      inflightRef.current = null;
    });
    await request;
  }, [filename, queryClient, workspaceId]);

  // Debounced autosave after each edit.
  useEffect(() => {
    if (code === null || code === savedRef.current) return;
    setSaveState((state) => (state === "saving" ? state : "unsaved"));
    const timer = setTimeout(() => save().catch(() => undefined), AUTOSAVE_DELAY_MS);
    return () => clearTimeout(timer);
  }, [code, save]);

  // Warn before leaving with unsaved text.
  useEffect(() => {
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      if (codeRef.current !== null && codeRef.current !== savedRef.current) event.preventDefault();
    };
    window.addEventListener("beforeunload", onBeforeUnload);
    return () => window.removeEventListener("beforeunload", onBeforeUnload);
  }, []);

  const error = workspacesQuery.error ?? workspaceQuery.error;
  const noWorkspace = workspacesQuery.isSuccess && workspaceId === undefined;
  return { code, setCode, filename, saveState, saveError, save, error, noWorkspace, workspace };
}

export type WorkspaceFileState = ReturnType<typeof useWorkspaceFile>;
