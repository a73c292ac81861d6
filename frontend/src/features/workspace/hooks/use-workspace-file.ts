import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState } from "react";
import type { Workspace, WorkspaceFile } from "@/types/api";
import { ensureWorkspace, namedWorkspaceQueryKey } from "../api/create-workspace";
import { useWorkspace, workspaceQueryKey } from "../api/get-workspace";
import { useWorkspaces } from "../api/get-workspaces";
import { updateWorkspace, withFileContent, workspaceTooLarge } from "../api/update-workspace";

export type SaveState = "saved" | "unsaved" | "saving" | "error";

export const AUTOSAVE_DELAY_MS = 1000;
export const MAIN_FILE = "app.lua";

function mainFile(workspace: Workspace) {
  return workspace.files.find((file) => file.path === MAIN_FILE) ?? workspace.files[0] ?? { path: MAIN_FILE, content: "" };
}

/** A workspace of the user's own, by name: made from `files` the first time it is opened
 * (the IDE of an assignment keeps one per assignment, started from its starter). */
export interface NamedWorkspace {
  name: string;
  files: WorkspaceFile[];
}

/** Which workspace to edit: the user's first (default) one, or their named one. */
function useWorkspaceId(named: NamedWorkspace | null) {
  const queryClient = useQueryClient();
  const workspacesQuery = useWorkspaces(named === null);
  const namedQuery = useQuery({
    queryKey: namedWorkspaceQueryKey(named?.name ?? ""),
    queryFn: async () => {
      const workspace = await ensureWorkspace(named!.name, named!.files);
      // The editor reads (and saves through) the detail cache: no second GET.
      queryClient.setQueryData(workspaceQueryKey(workspace.id), workspace);
      return workspace;
    },
    enabled: named !== null,
    staleTime: Infinity,
  });
  if (named === null) {
    const id = workspacesQuery.data?.[0]?.id;
    return { id, error: workspacesQuery.error, missing: workspacesQuery.isSuccess && id === undefined };
  }
  return { id: namedQuery.data?.id, error: namedQuery.error, missing: false };
}

/** Loads app.lua of the user's first workspace (no argument), or of their workspace `named`
 * (created from its files on first use), and keeps it saved (debounced autosave). */
export function useWorkspaceFile(named: NamedWorkspace | null = null) {
  const queryClient = useQueryClient();
  const target = useWorkspaceId(named);
  const workspaceId = target.id;
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
    const body = withFileContent(current, filename, snapshot);
    const tooLarge = workspaceTooLarge(body);
    if (tooLarge !== null) {
      setSaveError(new Error(tooLarge));
      setSaveState("error");
      throw new Error(tooLarge);
    }
    setSaveState("saving");
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

  const error = target.error ?? workspaceQuery.error;
  const noWorkspace = target.missing;
  return { code, setCode, filename, saveState, saveError, save, error, noWorkspace, workspace };
}

export type WorkspaceFileState = ReturnType<typeof useWorkspaceFile>;
