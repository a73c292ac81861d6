import type { MetricSeries } from "./metric-store";

/** A CSV cell: quoted when it holds a comma, quote or line break. */
function cell(v: string | number | boolean | undefined): string {
  if (v === undefined) return "";
  const s = String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/**
 * Every record of a metric as CSV, raw SI values (not display units), in time order:
 * `t,node,value` and one column per field name any record carried (empty when it had none).
 */
export function seriesCsv(series: MetricSeries): string {
  const names = [...series.fieldNames].sort();
  const order = series.t.map((_, i) => i).sort((a, b) => series.t[a]! - series.t[b]! || series.node[a]! - series.node[b]!);
  const rows = [["t", "node", "value", ...names].map(cell).join(",")];
  for (const i of order) {
    const fields = series.fields[i];
    rows.push([series.t[i], series.node[i], series.values[i], ...names.map((k) => fields?.[k])].map(cell).join(","));
  }
  return `${rows.join("\n")}\n`;
}
