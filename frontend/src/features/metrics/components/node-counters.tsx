import { useState } from "react";
import type { MetricKind } from "@/types/api";
import { formatValue, type NodeCounter } from "../lib/metric-store";

interface NodeCountersProps {
  rows: NodeCounter[];
  kind: MetricKind;
  /** Display unit and its factor (displayUnit; none for a count). */
  unit: string;
  scale: number;
}

type Column = "node" | "count" | "value" | "last";


/** Per node: records, mean (a count: sum) and latest value; a node that never reported shows
 * 0, so a silent node stands out. Sorted by node, or by the clicked column (again: reversed). */
export function NodeCounters({ rows, kind, unit, scale }: NodeCountersProps) {
  const [sort, setSort] = useState<{ by: Column; desc: boolean }>({ by: "node", desc: false });
  const value = (r: NodeCounter) => (kind === "count" ? r.sum : r.count ? r.sum / r.count : Number.NaN);
  const key: Record<Column, (r: NodeCounter) => number> = { node: (r) => r.node, count: (r) => r.count, value, last: (r) => r.last };
  const sorted = [...rows].sort((a, b) => {
    const x = key[sort.by](a);
    const y = key[sort.by](b);
    // A row without a value (a silent node) goes last either way.
    if (Number.isNaN(x) || Number.isNaN(y)) return Number(Number.isNaN(x)) - Number(Number.isNaN(y)) || a.node - b.node;
    return (sort.desc ? y - x : x - y) || a.node - b.node;
  });
  const u = unit ? ` (${unit})` : "";
  const header = (by: Column, label: string) => (
    <th aria-sort={sort.by === by ? (sort.desc ? "descending" : "ascending") : "none"}>
      <button type="button" className="th-sort" onClick={() => setSort((s) => ({ by, desc: s.by === by && !s.desc }))}>
        {label}{sort.by === by ? (sort.desc ? " ▾" : " ▴") : ""}
      </button>
    </th>
  );
  return (
    <div className="node-counters table-scroll" data-testid="node-counters">
      <table>
        <thead>
          <tr>
            {header("node", "node")}
            {header("count", kind === "count" ? "records" : "samples")}
            {header("value", kind === "count" ? "sum" : `mean${u}`)}
            {header("last", `last${u}`)}
          </tr>
        </thead>
        <tbody>
          {sorted.map((r) => (
            <tr key={r.node} className={r.count === 0 ? "muted" : undefined}>
              <td>{r.node}</td>
              <td>{r.count}</td>
              <td>{formatValue(value(r) * scale)}</td>
              <td>{formatValue(r.last * scale)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
