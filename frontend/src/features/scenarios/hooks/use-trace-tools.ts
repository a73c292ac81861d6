import { useRef, useState } from "react";
import { downloadText } from "@/lib/download";
import { isTraceOk, type ChurnTrace } from "@/types/api";
import { useTraceScenario } from "../api/trace-scenario";
import {
  DEFAULT_TRACE_FORM, fileTooLarge, textErrorsLine, traceFailureLines, traceFileName, traceRequest,
  traceResultLine, type TraceForm,
} from "../lib/trace-tools";

/** The last action's line(s), for the scenario that was open (`opened`) when it ran. */
type Outcome = { opened: number; result: string } | { opened: number; errors: string[] };

interface TraceToolsOptions {
  /** The editor's text, the scenario's name (the downloaded file's) and its opening (see useScenarioDraft). */
  text: string;
  name: string;
  opened: number;
  /** Replaces the editor's text (an edit: Ctrl+Z in the editor undoes it). */
  onText: (text: string) => void;
}

/** The trace tools on the editor's text (POST /api/scenarios/trace/; nothing is saved): convert it
 * in place, download it as a trace, or open a local file into the editor. */
export function useTraceTools({ text, name, opened, onText }: TraceToolsOptions) {
  const [form, setForm] = useState<TraceForm>(DEFAULT_TRACE_FORM);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [reading, setReading] = useState(false);
  const trace = useTraceScenario();
  const latest = useRef({ text, opened });
  latest.current = { text, opened };

  const run = async (action: "convert" | "download") => {
    const request = traceRequest(text, form);
    if (!request.ok) return setOutcome({ opened, errors: request.problems });
    const sent = { text, opened };
    setOutcome(null);
    let answer: ChurnTrace;
    try {
      answer = await trace.mutateAsync(request.input);
    } catch (error) {
      return setOutcome({ opened: sent.opened, errors: traceFailureLines(error) });
    }
    if (!isTraceOk(answer)) return setOutcome({ opened: sent.opened, errors: [textErrorsLine(answer.errors)] });
    if (action === "download") {
      const file = traceFileName(name);
      downloadText(file, answer.trace);
      return setOutcome({ opened: sent.opened, result: traceResultLine(answer, file) });
    }
    // typed into, or another scenario opened, meanwhile: the trace is of a text that is gone
    if (latest.current.text !== sent.text || latest.current.opened !== sent.opened) {
      return setOutcome({ opened: sent.opened, errors: ["The text changed during the conversion: it is left as it is."] });
    }
    onText(answer.trace);
    setOutcome({ opened: sent.opened, result: traceResultLine(answer) });
  };

  const open = async (file: File | undefined) => {
    if (!file) return;
    const refused = fileTooLarge(file);
    if (refused) return setOutcome({ opened, errors: [refused] });
    const at = opened;
    setReading(true);
    try {
      const content = await file.text();
      if (latest.current.opened !== at) return; // another scenario was opened meanwhile
      onText(content);
      setOutcome({ opened: at, result: `Opened ${file.name}.` });
    } catch (error) {
      setOutcome({ opened: at, errors: [`Cannot read ${file.name}: ${error instanceof Error ? error.message : String(error)}`] });
    } finally {
      setReading(false);
    }
  };

  const shown = outcome?.opened === opened ? outcome : null;
  return {
    form,
    setField: (field: keyof TraceForm, value: string) => setForm((f) => ({ ...f, [field]: value })),
    busy: trace.isPending || reading,
    convert: () => void run("convert"),
    download: () => void run("download"),
    open: (file: File | undefined) => void open(file),
    result: shown && "result" in shown ? shown.result : null,
    errors: shown && "errors" in shown ? shown.errors : [],
  };
}
