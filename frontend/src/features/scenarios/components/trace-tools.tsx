import type { ChangeEvent } from "react";
import { useTraceTools } from "../hooks/use-trace-tools";
import type { TraceForm } from "../lib/trace-tools";

interface TraceToolsProps {
  text: string;
  name: string;
  opened: number;
  onText: (text: string) => void;
}

const FIELDS: { field: keyof TraceForm; label: string; title: string; placeholder?: string }[] = [
  { field: "speedup", label: "Speed-up ×", title: "Time runs this many times faster (×2 maps a minute to 30 s)" },
  { field: "amplitude", label: "Amplitude ×", title: "The population scaled by this factor, keeping its session statistics" },
  { field: "from", label: "From (s)", title: "The window's start (the trace starts at 0 there)", placeholder: "0" },
  { field: "to", label: "To (s)", title: "The window's end (a node on then stays on)", placeholder: "end" },
  { field: "seed", label: "Seed", title: "The script's random draws and the amplitude's" },
];

/** The CLI's `churn trace` tools on the editor's text, for everyone (nothing is saved): convert it
 * to a SPLAY trace in the editor (Ctrl+Z undoes it) or download it, and open a local file. */
export function TraceTools({ text, name, opened, onText }: TraceToolsProps) {
  const tools = useTraceTools({ text, name, opened, onText });
  const pickFile = (event: ChangeEvent<HTMLInputElement>) => {
    tools.open(event.target.files?.[0]);
    event.target.value = ""; // the same file may be opened again
  };

  return (
    <section className="trace-tools card" aria-label="Trace tools" aria-busy={tools.busy}>
      <div className="trace-tools-row">
        <h2 title="Window, then speed-up, then amplitude (docs/churn.md)">Trace tools</h2>
        {FIELDS.map(({ field, label, title, placeholder }) => (
          <label key={field} title={title}>
            {label}
            <input type="number" data-testid={`trace-${field}`} min={field === "seed" ? 0 : undefined}
              step={field === "seed" ? 1 : "any"} value={tools.form[field]} placeholder={placeholder}
              required={field === "seed"} onChange={(e) => tools.setField(field, e.target.value)} />
          </label>
        ))}
        <button type="button" className="primary" data-testid="trace-convert" disabled={tools.busy} onClick={tools.convert}
          title="Replace the editor's text with the scenario as a SPLAY trace">
          Convert to trace
        </button>
        <button type="button" data-testid="trace-download" disabled={tools.busy} onClick={tools.download}
          title="Download the scenario as a SPLAY trace; the editor is left as it is">
          Download trace
        </button>
        <label className={`trace-open button${tools.busy ? " disabled" : ""}`}
          title="Read a SPLAY trace, an FTA event_trace or a script (1 MB at most) into the editor">
          Open file…
          <input type="file" className="visually-hidden" data-testid="trace-open" disabled={tools.busy}
            accept=".churn,.trace,.txt,.events,text/plain" onChange={pickFile} />
        </label>
      </div>
      {tools.result && (
        <p className="trace-result muted" role="status" data-testid="trace-result">{tools.result}</p>
      )}
      {tools.errors.length > 0 && (
        <div className="trace-error error-box" role="alert" data-testid="trace-error">
          {tools.errors.map((line) => <div key={line}>{line}</div>)}
        </div>
      )}
    </section>
  );
}
