interface HopHistogramProps {
  hops: Map<number, number>;
}

/** Route lengths: one bar per hop count, its share of the lookups, and the mean. */
export function HopHistogram({ hops }: HopHistogramProps) {
  const rows = [...hops.entries()].sort((a, b) => a[0] - b[0]);
  const total = rows.reduce((s, [, n]) => s + n, 0);
  const mean = rows.reduce((s, [h, n]) => s + h * n, 0) / total;
  const top = Math.max(...rows.map(([, n]) => n));
  return (
    <div className="hop-histogram" data-testid="hop-histogram">
      <h3>Hops per lookup <span className="muted">(mean {mean.toFixed(2)}, {total} lookups)</span></h3>
      {rows.map(([h, n]) => (
        <div key={h} className="hop-row">
          <span className="hop-label">{h}</span>
          <span className="hop-bar" style={{ width: `${(100 * n) / top}%` }} />
          <span className="muted">{((100 * n) / total).toFixed(1)} %</span>
        </div>
      ))}
    </div>
  );
}
