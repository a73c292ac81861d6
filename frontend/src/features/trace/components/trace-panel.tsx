import { useMemo, useState } from "react";
import "./trace.css";
import { ErrorMessage } from "@/components/ui/error-message";
import { Spinner } from "@/components/ui/spinner";
import { useJobTrace } from "../api/get-trace";
import { buildDiagram, describeCall, type DiagramModel, type Message } from "../lib/diagram-model";
import { centreOn, fitView, zoomAt, type View } from "../lib/viewport";
import { MessageDetail } from "./message-detail";
import { TraceCanvas } from "./trace-canvas";

interface TracePanelProps {
  jobId: number;
  nodeCount: number;
  simulated: boolean;
  /** The job is over: its trace is complete. */
  finished: boolean;
}

/** The job's messages as a space-time diagram (docs/trace.md, docs/editor.md "Debugging a
 * run"): opened on demand, since a trace can hold hundreds of thousands of rows. */
export function TracePanel({ jobId, nodeCount, simulated, finished }: TracePanelProps) {
  const [open, setOpen] = useState(false);
  const [version, setVersion] = useState(0);
  const trace = useJobTrace(jobId, open, version);
  const model = useMemo(() => (trace.data ? buildDiagram(trace.data.rows, nodeCount) : null), [trace.data, nodeCount]);

  return (
    <section className="trace-panel card" data-testid="trace-panel" aria-label="Messages">
      <div className="trace-toolbar">
        <h2>Messages</h2>
        {!open && (
          <button type="button" data-testid="trace-open" onClick={() => setOpen(true)}>
            Show the space-time diagram
          </button>
        )}
        {open && !finished && (
          <button type="button" onClick={() => setVersion((v) => v + 1)}>Reload</button>
        )}
      </div>
      {open && trace.isPending && <Spinner label="Loading the trace…" />}
      {open && trace.isError && <ErrorMessage error={trace.error} title="Cannot load the trace." />}
      {model && trace.data && (
        model.messages.length === 0 && model.ops.length === 0 ? (
          <p className="muted" data-testid="trace-empty">
            No messages traced. {simulated ? "" : "A live job is traced when submitted with the trace on (run bar, or `trace true` in the code's descriptor); simulated jobs always are."}
          </p>
        ) : (
          <Diagram model={model} errors={trace.data.errors} key={`${jobId}-${version}`} />
        )
      )}
    </section>
  );
}

function Diagram({ model, errors }: { model: DiagramModel; errors: { t: number; node: number; text: string }[] }) {
  const [view, setView] = useState<View>(() => fitView(model.start, model.end));
  const [op, setOp] = useState<string | null>(null);
  const [selected, setSelected] = useState<Message | null>(null);
  const requestOf = useMemo(() => {
    const byCall = new Map<number, Message>();
    for (const m of model.messages) if (m.kind === "request") byCall.set(m.call, m);
    return byCall;
  }, [model]);
  const marks = useMemo(() => ({ op, selected, errors: errors.map((e) => e.t) }), [op, selected, errors]);
  const focus = op === null ? null : model.ops.find((o) => o.op === op) ?? null;

  const follow = (id: string | null) => {
    setOp(id);
    const o = id === null ? null : model.ops.find((x) => x.op === id);
    if (!o) return;
    const times = o.calls.map((i) => model.calls[i]!);
    const from = Math.min(o.t, ...times.map((c) => c.t));
    const to = Math.max(o.t + o.dur, ...times.map((c) => c.t + c.dur));
    setView(fitView(from, Math.max(to, from + 1e-3)));
  };
  const centre = (view.v0 + view.v1) / 2;

  return (
    <div className="trace-diagram">
      <div className="trace-controls">
        <span className="muted" data-testid="trace-summary">
          {model.nodes} nodes · {model.messages.length.toLocaleString()} messages · {model.ops.length} operations
          {model.external > 0 ? ` · ${model.external} to addresses outside the job` : ""}
        </span>
        <button type="button" onClick={() => setView(zoomAt(view, centre, 0.5))} aria-label="Zoom in">+</button>
        <button type="button" onClick={() => setView(zoomAt(view, centre, 2))} aria-label="Zoom out">−</button>
        <button type="button" data-testid="trace-fit" onClick={() => setView(fitView(model.start, model.end))}>Whole run</button>
        {model.ops.length > 0 && (
          <label>
            Follow an operation{" "}
            <select data-testid="trace-op-select" value={op ?? ""} onChange={(e) => follow(e.target.value || null)}>
              <option value="">none</option>
              {model.ops.map((o) => (
                <option key={o.op} value={o.op}>
                  {o.name || "operation"} {o.op} · node {o.node} · {o.calls.length} calls
                </option>
              ))}
            </select>
          </label>
        )}
        {errors.length > 0 && (
          <label>
            Jump to an error{" "}
            <select data-testid="trace-error-select" value="" onChange={(e) => {
              const err = errors[Number(e.target.value)];
              if (err) setView(centreOn(err.t, Math.min(2, Math.max(0.05, (model.end - model.start) / 20))));
            }}>
              <option value="">{errors.length} error line{errors.length === 1 ? "" : "s"}</option>
              {errors.map((err, i) => (
                <option key={i} value={i}>t={err.t.toFixed(3)} s · node {err.node} · {err.text.slice(0, 80)}</option>
              ))}
            </select>
          </label>
        )}
      </div>
      <div className="trace-window muted" data-testid="trace-window">
        {view.v0.toFixed(3)} s – {view.v1.toFixed(3)} s · wheel to zoom, Shift+wheel or drag to scroll, click an arrow
      </div>
      <TraceCanvas model={model} view={view} onView={setView} marks={marks} onSelect={setSelected} />
      {selected && <MessageDetail message={selected} onFollow={selected.op ? () => follow(selected.op) : undefined} />}
      {focus && (
        <div className="trace-hops">
          <h3>
            {focus.name || "operation"} {focus.op}: node {focus.node}, {focus.outcome || "no outcome recorded"},{" "}
            {focus.calls.length} call{focus.calls.length === 1 ? "" : "s"}
          </h3>
          <ol data-testid="trace-op-hops">
            {focus.calls.map((i) => (
              <li key={i}>
                <button type="button" className="link-button" onClick={() => setSelected(requestOf.get(i) ?? null)}>
                  {describeCall(model.calls[i]!)}
                </button>
              </li>
            ))}
          </ol>
        </div>
      )}
    </div>
  );
}
