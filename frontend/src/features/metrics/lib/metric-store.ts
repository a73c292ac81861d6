import type { MetricChunk, MetricFields, MetricKind } from "@/types/api";

/** What one node reported for a metric: its records, their sum, and its latest value. */
export interface NodeCounter {
  node: number;
  count: number;
  sum: number;
  last: number;
  /** Time of `last`: chunks arrive in any order, the latest record by time wins. */
  lastT: number;
}

/** Every record of one metric, one entry per record in the parallel arrays (arrival order). */
export interface MetricSeries {
  name: string;
  /** Kind of the first chunk seen: a name is expected to be used with one kind only. */
  kind: MetricKind;
  t: number[];
  node: number[];
  values: number[];
  /** The record's fields, null when it had none. */
  fields: (MetricFields | null)[];
  /** Every field name seen (the CSV columns). */
  fieldNames: Set<string>;
  /** Histogram of the integer field `hops`, when records carry it. */
  hops: Map<number, number>;
  nodes: Map<number, NodeCounter>;
}

function newSeries(name: string, kind: MetricKind): MetricSeries {
  return { name, kind, t: [], node: [], values: [], fields: [], fieldNames: new Set(), hops: new Map(), nodes: new Map() };
}

/**
 * Every metric record of a job, from `metric.chunks` pushes and `/metrics/chunks/` history
 * pages in any order, each chunk taken once (by id). It keeps every sample, so the CDF is
 * exact and the time series and per-node counters come from the same data.
 */
export class MetricStore {
  private readonly chunkIds = new Set<number>();
  /** Highest chunk id taken (the history cursor moves past it after a catch-up). */
  maxId = 0;
  readonly series = new Map<string, MetricSeries>();

  /** Returns how many records were new. */
  add(chunks: readonly MetricChunk[]): number {
    let added = 0;
    for (const chunk of chunks) {
      if (this.chunkIds.has(chunk.id)) continue;
      this.chunkIds.add(chunk.id);
      if (chunk.id > this.maxId) this.maxId = chunk.id;
      let s = this.series.get(chunk.name);
      if (!s) {
        s = newSeries(chunk.name, chunk.kind);
        this.series.set(chunk.name, s);
      }
      added += addChunk(s, chunk);
    }
    return added;
  }

  /** Metric names: observed ones first (they have a CDF), then by number of records. */
  names(): string[] {
    return [...this.series.values()]
      .filter((s) => s.values.length > 0)
      .sort((a, b) => Number(a.kind === "count") - Number(b.kind === "count")
        || b.values.length - a.values.length || a.name.localeCompare(b.name))
      .map((s) => s.name);
  }
}

function addChunk(s: MetricSeries, chunk: MetricChunk): number {
  let added = 0;
  const n = Math.min(chunk.t.length, chunk.value.length, chunk.node.length);
  for (let i = 0; i < n; i++) {
    const node = chunk.node[i]!;
    const t = chunk.t[i]!;
    const value = chunk.value[i]!;
    if (!Number.isFinite(value) || !Number.isFinite(t)) continue;
    const fields = chunk.fields?.[i] ?? null;
    s.t.push(t);
    s.node.push(node);
    s.values.push(value);
    s.fields.push(fields);
    if (fields) {
      for (const key of Object.keys(fields)) s.fieldNames.add(key);
      const hops = fields.hops;
      if (typeof hops === "number" && Number.isInteger(hops)) s.hops.set(hops, (s.hops.get(hops) ?? 0) + 1);
    }
    let c = s.nodes.get(node);
    if (!c) {
      c = { node, count: 0, sum: 0, last: value, lastT: t };
      s.nodes.set(node, c);
    }
    c.count++;
    c.sum += value;
    if (t >= c.lastT) {
      c.last = value;
      c.lastT = t;
    }
    added++;
  }
  return added;
}

/** One row per node 1..nodeCount (a silent node shows up with 0 records) and per other
 * node that reported, sorted by node. */
export function nodeCounters(series: MetricSeries, nodeCount = 0): NodeCounter[] {
  const rows = new Map(series.nodes);
  for (let node = 1; node <= nodeCount; node++) {
    if (!rows.has(node)) rows.set(node, { node, count: 0, sum: 0, last: Number.NaN, lastT: Number.NaN });
  }
  return [...rows.values()].sort((a, b) => a.node - b.node);
}

/** Empirical CDF: sorted values and, for each, the fraction of samples <= it. */
export function cdf(values: readonly number[]): { x: number[]; y: number[] } {
  const x = [...values].sort((a, b) => a - b);
  const n = x.length;
  return { x, y: x.map((_, i) => (i + 1) / n) };
}

/** The value below which a fraction q of the samples lie (nearest rank). */
export function quantile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i]!;
}

/**
 * splay.metrics values are in SI units (seconds for times). A metric whose name says it is a
 * time (latency, rtt, delay, owd, time) and whose values are below 100 is shown in ms.
 */
export function displayUnit(name: string, values: readonly number[]): { unit: string; scale: number } {
  if (/_ms$/i.test(name)) return { unit: "ms", scale: 1 };
  const timeLike = /(latency|rtt|delay|owd|time|_s$)/i.test(name);
  if (timeLike && values.every((v) => v < 100)) return { unit: "ms", scale: 1000 };
  return { unit: "", scale: 1 };
}

/** A value for a table or label: integers whole, others to 3 significant digits without an
 * exponent from 1 up ("1234" not "1.23e+3"); "–" when there is none. */
export function formatValue(v: number | null): string {
  if (v === null || !Number.isFinite(v)) return "–";
  if (Number.isInteger(v) || Math.abs(v) >= 1000) return String(Math.round(v));
  return v.toPrecision(3);
}
