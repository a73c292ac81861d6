import { useState } from "react";
import { CHURN_LANGUAGE, CodeEditor } from "@/components/code-editor/code-editor";

interface FilesEditorProps {
  files: Record<string, string>;
  onChange: (next: (files: Record<string, string>) => Record<string, string>) => void;
  onSave: () => void;
  /** Model paths start with it (each file keeps its own undo history). */
  pathPrefix: string;
}

const languageOf = (path: string) => (path.endsWith(".churn") ? CHURN_LANGUAGE : path.endsWith(".lua") ? "lua" : "plaintext");

/** The assignment's other files (churn scenarios the runs name, checks.py): pick, edit, add, remove. */
export function FilesEditor({ files, onChange, onSave, pathPrefix }: FilesEditorProps) {
  const paths = Object.keys(files).sort();
  const [picked, setPicked] = useState<string | null>(paths[0] ?? null);
  const [newPath, setNewPath] = useState("");
  const open = picked !== null && picked in files ? picked : (paths[0] ?? null);

  const add = () => {
    const path = newPath.trim();
    if (!path) return;
    onChange((all) => (path in all ? all : { ...all, [path]: "" }));
    setPicked(path);
    setNewPath("");
  };
  const remove = (path: string) => {
    onChange(({ [path]: _removed, ...rest }) => rest);
  };

  return (
    <div className="files-edit">
      <div className="files-bar">
        <select data-testid="edit-file-select" value={open ?? ""} onChange={(e) => setPicked(e.target.value)} disabled={!open}>
          {paths.length === 0 && <option value="">no file</option>}
          {paths.map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </select>
        {open && (
          <button type="button" data-testid="edit-file-remove" onClick={() => remove(open)}>
            Remove {open}
          </button>
        )}
        <form
          className="files-add"
          onSubmit={(e) => {
            e.preventDefault();
            add();
          }}
        >
          <input
            data-testid="edit-file-path"
            placeholder="scenarios/new.churn"
            value={newPath}
            onChange={(e) => setNewPath(e.target.value)}
          />
          <button type="submit" disabled={!newPath.trim()}>
            Add file
          </button>
        </form>
      </div>
      {open ? (
        <div className="edit-code" data-testid="edit-code">
          <CodeEditor
            value={files[open] ?? ""}
            onChange={(text) => onChange((all) => ({ ...all, [open]: text }))}
            onSave={onSave}
            language={languageOf(open)}
            path={`${pathPrefix}/${open}`}
          />
        </div>
      ) : (
        <p className="muted">No file. Runs name churn scenarios by path (e.g. scenarios/massive-failure.churn).</p>
      )}
    </div>
  );
}
