import { useCallback, useEffect, useRef, useState } from "react";
import type { Scenario } from "@/types/api";
import { useCreateScenario } from "../api/create-scenario";
import { useDeleteScenario } from "../api/delete-scenario";
import { useUpdateScenario } from "../api/update-scenario";
import { draftOf, isDirty, newDraft, type ScenarioDraft } from "../lib/scenario-draft";

/** The scenario being edited: opened from the library (the first one at load) or new, saved
 * with POST or PUT, deleted. `opened` counts openings: the editor is remounted on each, so
 * that undo does not cross from one scenario into another. */
export function useScenarioDraft(scenarios: Scenario[] | undefined) {
  const [draft, setDraft] = useState<ScenarioDraft | null>(null);
  const [opened, setOpened] = useState(0);
  const openedRef = useRef(opened);
  openedRef.current = opened;
  const create = useCreateScenario();
  const update = useUpdateScenario();
  const remove = useDeleteScenario();

  const saved = draft?.id != null ? scenarios?.find((s) => s.id === draft.id) : undefined;
  const dirty = draft !== null && isDirty(draft, saved);

  const { reset: resetCreate } = create;
  const { reset: resetUpdate } = update;
  const { reset: resetRemove } = remove;
  const replace = useCallback(
    (next: ScenarioDraft) => {
      setDraft(next);
      setOpened((n) => n + 1);
      // the last save's error belongs to the scenario that was open
      resetCreate();
      resetUpdate();
      resetRemove();
    },
    [resetCreate, resetUpdate, resetRemove],
  );

  useEffect(() => {
    if (draft === null && scenarios) replace(scenarios[0] ? draftOf(scenarios[0]) : newDraft());
  }, [draft, scenarios, replace]);

  /** Opens a library scenario, or a new one (null); asks first when edits would be lost. */
  const open = (scenario: Scenario | null) => {
    if (dirty && !window.confirm("Discard the changes to this scenario?")) return;
    replace(scenario ? draftOf(scenario) : newDraft());
  };

  const edit = (patch: Partial<Omit<ScenarioDraft, "id">>) => setDraft((d) => (d ? { ...d, ...patch } : d));

  const saving = create.isPending || update.isPending;
  const save = async () => {
    if (!draft || saving) return; // Ctrl+S while saving: one request at a time
    const openedAt = openedRef.current;
    const input = { name: draft.name.trim(), description: draft.description, text: draft.text };
    const result = draft.id === null ? await create.mutateAsync(input) : await update.mutateAsync({ id: draft.id, ...input });
    if (openedRef.current !== openedAt) return; // another scenario was opened meanwhile
    // keeps what was typed during the request: only the id and the trimmed name come back
    setDraft((d) => (d ? { ...d, id: result.id, name: d.name === draft.name ? result.name : d.name } : d));
  };

  const destroy = async () => {
    if (draft?.id == null || !window.confirm(`Delete "${draft.name}" from the library?`)) return;
    await remove.mutateAsync(draft.id);
    const next = scenarios?.find((s) => s.id !== draft.id);
    replace(next ? draftOf(next) : newDraft());
  };

  const saveError = draft?.id === null ? create.error : update.error;
  return {
    draft, opened, dirty, open, edit,
    save: () => void save().catch(() => undefined),
    destroy: () => void destroy().catch(() => undefined),
    saving,
    saveError: saveError ?? remove.error,
  };
}

export type ScenarioDraftState = ReturnType<typeof useScenarioDraft>;
