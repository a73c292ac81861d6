import { useMemo, useState } from "react";
import type { AssignmentDetail } from "@/types/grading";
import { useUpdateAssignment } from "../api/update-assignment";
import { changedFields, draftFromAssignment, parseSpecYaml, type AssignmentDraft, type DraftError } from "../lib/assignment-draft";

/** The assignment editor's state: the draft, what changed since the last save, and Save
 * (only the changed fields; a local error, e.g. the spec's YAML, stops it before sending). */
export function useAssignmentDraft(courseId: number, assignment: AssignmentDetail) {
  const [initial, setInitial] = useState(() => draftFromAssignment(assignment));
  const [draft, setDraft] = useState(initial);
  const [localError, setLocalError] = useState<DraftError | null>(null);
  const [savedAt, setSavedAt] = useState<Date | null>(null);
  const update = useUpdateAssignment(courseId);

  const patch = useMemo(() => changedFields(initial, draft), [initial, draft]);
  // The spec's YAML is checked as it is typed, so its error shows (and marks its line) at once.
  const specError = useMemo(() => (draft.spec === initial.spec ? null : (parseSpecYaml(draft.spec).error ?? null)), [draft.spec, initial.spec]);
  const changed = patch.error ? true : Object.keys(patch.input).length > 0;

  const set = <K extends keyof AssignmentDraft>(key: K, value: AssignmentDraft[K]) => {
    setDraft((d) => ({ ...d, [key]: value }));
    setLocalError(null);
    setSavedAt(null);
  };

  /** The files, from the latest draft (an editor's keystrokes may come faster than renders). */
  const setFiles = (next: (files: Record<string, string>) => Record<string, string>) => {
    setDraft((d) => ({ ...d, files: next(d.files) }));
    setLocalError(null);
    setSavedAt(null);
  };

  const save = () => {
    if (patch.error) {
      setLocalError(patch.error);
      return;
    }
    if (Object.keys(patch.input).length === 0 || update.isPending) return;
    const sent = draft;
    update.mutate(
      { slug: assignment.slug, input: patch.input },
      {
        onSuccess: (saved) => {
          // What the server now holds is the new starting point (the spec's YAML rewritten from its JSON).
          const next = draftFromAssignment(saved);
          setInitial(next);
          setDraft((d) => (d === sent ? next : d)); // keep what was typed while saving
          setSavedAt(new Date());
        },
      },
    );
  };

  const isChanged = (key: keyof AssignmentDraft) => JSON.stringify(draft[key]) !== JSON.stringify(initial[key]);

  return { draft, set, setFiles, save, changed, isChanged, specError, localError, update, savedAt };
}

export type AssignmentDraftState = ReturnType<typeof useAssignmentDraft>;
