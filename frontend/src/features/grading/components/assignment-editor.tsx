import { useState } from "react";
import { CodeEditor } from "@/components/code-editor/code-editor";
import { useUnsavedGuard } from "@/lib/use-unsaved-guard";
import { errorText } from "@/components/ui/error-message";
import type { AssignmentDetail } from "@/types/grading";
import { useAssignmentDraft } from "../hooks/use-assignment-draft";
import type { AssignmentDraft } from "../lib/assignment-draft";
import { AssignmentFields } from "./assignment-fields";
import { FilesEditor } from "./files-editor";
import { HandoutEditor } from "./handout-editor";
import { SpecEditor } from "./spec-editor";

type Tab = "handout" | "starter" | "reference" | "harness" | "spec" | "files";

const TABS: { key: Tab; label: string }[] = [
  { key: "handout", label: "Handout" },
  { key: "starter", label: "Starter (app.lua)" },
  { key: "reference", label: "Reference" },
  { key: "harness", label: "Harness" },
  { key: "spec", label: "Spec (assignment.yaml)" },
  { key: "files", label: "Files" },
];

const LUA_NOTES: Partial<Record<Tab, string>> = {
  starter: "What a student starts from (their workspace's app.lua, the first time they open the assignment).",
  reference: "The instructors' solution: graded under the same runs to compare with; never shown to students.",
  harness: "Drives the submission during grading; students see it read-only.",
};

/** Instructors: every part of an assignment, saved as one PATCH of what changed (docs/grading.md). */
export function AssignmentEditor({ courseId, assignment }: { courseId: number; assignment: AssignmentDetail }) {
  const state = useAssignmentDraft(courseId, assignment);
  const [tab, setTab] = useState<Tab>("handout");
  const { draft, set, save } = state;
  useUnsavedGuard(state.changed, "This assignment has changes that are not saved. Leave and lose them?");
  const modelPath = (name: string) => `assignment-edit/${courseId}/${assignment.slug}/${name}`;
  const luaKey = tab === "starter" || tab === "reference" || tab === "harness" ? tab : null;

  return (
    <div className="assignment-editor">
      <AssignmentFields state={state} />
      <div className="edit-tabs" role="tablist">
        {TABS.map((t) => (
          <button
            key={t.key}
            type="button"
            role="tab"
            aria-selected={tab === t.key}
            data-testid={`edit-tab-${t.key}`}
            className={tab === t.key ? "edit-tab active" : "edit-tab"}
            onClick={() => setTab(t.key)}
          >
            {t.label}
            {state.isChanged(t.key as keyof AssignmentDraft) && <span title="changed, not saved"> •</span>}
          </button>
        ))}
      </div>
      <div className="edit-pane" role="tabpanel">
        {tab === "handout" && (
          <HandoutEditor value={draft.handout} onChange={(v) => set("handout", v)} onSave={save} path={modelPath("README.md")} />
        )}
        {luaKey && (
          <>
            <p className="muted">{LUA_NOTES[luaKey]}</p>
            <div className="edit-code" data-testid="edit-code">
              <CodeEditor
                value={draft[luaKey]}
                onChange={(v) => set(luaKey, v)}
                onSave={save}
                language="lua"
                path={modelPath(luaKey === "harness" ? "harness.lua" : `${luaKey}/app.lua`)}
              />
            </div>
          </>
        )}
        {tab === "spec" && (
          <SpecEditor
            value={draft.spec}
            onChange={(v) => set("spec", v)}
            onSave={save}
            path={modelPath("assignment.yaml")}
            error={state.specError}
          />
        )}
        {tab === "files" && (
          <FilesEditor files={draft.files} onChange={state.setFiles} onSave={save} pathPrefix={modelPath("files")} />
        )}
      </div>
      <SaveBar state={state} />
    </div>
  );
}

function SaveBar({ state }: { state: ReturnType<typeof useAssignmentDraft> }) {
  const { update, localError, savedAt, changed } = state;
  return (
    <div className="edit-save-bar">
      <button type="button" className="primary" data-testid="edit-save" disabled={!changed || update.isPending} onClick={state.save}>
        {update.isPending ? "Saving…" : "Save changes"}
      </button>
      <span className="muted" data-testid="edit-save-status">
        {update.isPending ? "saving" : changed ? "unsaved changes" : savedAt ? "saved" : "no change"}
      </span>
      {localError?.field === "spec" && (
        <span className="error-text" role="alert" data-testid="edit-local-error">
          Not saved: YAML error in the spec, {localError.message}
        </span>
      )}
      {update.isError && !localError && (
        // The server's words as they are: a bad spec's 400 names the key and the problem.
        <span className="error-text" role="alert" data-testid="edit-save-error">
          Not saved: {errorText(update.error)}
        </span>
      )}
    </div>
  );
}
