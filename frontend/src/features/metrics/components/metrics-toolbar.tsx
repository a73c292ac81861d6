import type { MetricKind } from "@/types/api";

interface MetricsToolbarProps {
  names: string[];
  name: string;
  kind: MetricKind;
  onName: (name: string) => void;
  logScale: boolean;
  onLogScale: (on: boolean) => void;
  /** Records of the chosen metric. */
  n: number;
  /** p50/p90 of an observation, the total of a count. */
  summary: string;
  compareText: string;
  onCompareText: (text: string) => void;
  /** Other runs to pick from (the history): adding one appends its id to the compare list. */
  runChoices?: { id: number; label: string }[];
  onCsv: () => void;
  onPngCdf: () => void;
  onPngSeries: () => void;
}

/** Metric choice, its headline numbers, the runs to compare with, and the exports. */
export function MetricsToolbar(props: MetricsToolbarProps) {
  const observe = props.kind === "observe";
  return (
    <div className="metrics-toolbar">
      <h2>Metrics</h2>
      <select aria-label="Metric" data-testid="metric-select" value={props.name} onChange={(e) => props.onName(e.target.value)}>
        {props.names.map((n) => <option key={n} value={n}>{n}</option>)}
      </select>
      {observe && (
        <label><input type="checkbox" checked={props.logScale} onChange={(e) => props.onLogScale(e.target.checked)} /> log scale</label>
      )}
      <span className="muted" data-testid="metric-count">n = {props.n}</span>
      <span className="muted">{props.summary}</span>
      {observe && (
        <input aria-label="Compare with jobs" title="Other job ids, separated by commas: their CDFs are overlaid"
          data-testid="compare-job" size={12} placeholder="compare #, #"
          value={props.compareText} onChange={(e) => props.onCompareText(e.target.value)} />
      )}
      {observe && props.runChoices && props.runChoices.length > 0 && (
        <select aria-label="Add a run to compare" data-testid="compare-pick" value=""
          onChange={(e) => e.target.value && props.onCompareText(
            [props.compareText.trim().replace(/,$/, ""), e.target.value].filter(Boolean).join(", "))}>
          <option value="">add a run…</option>
          {props.runChoices.map((run) => <option key={run.id} value={String(run.id)}>{run.label}</option>)}
        </select>
      )}
      <span className="metrics-exports">
        <button type="button" onClick={props.onCsv}>CSV</button>
        {observe && <button type="button" onClick={props.onPngCdf}>CDF PNG</button>}
        <button type="button" onClick={props.onPngSeries}>Series PNG</button>
      </span>
    </div>
  );
}
