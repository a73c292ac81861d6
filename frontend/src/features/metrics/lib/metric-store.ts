import type { LogLine } from "@/types/api";

/** One `metrics.observe` / `metrics.count` record, as splay.metrics writes it (a `metric` line). */
export interface MetricRecord {
  name: string;
  value: number;
  type: "observe" | "count";
  fields?: Record<string, string | number | boolean>;
}

export interface MetricSeries {
  name: string;
  /** Observed values, in arrival order. */
  values: number[];
  /** Sum of `count` records. */
  count: number;
  /** Histogram of the integer field `hops`, when observations carry it. */
  hops: Map<number, number>;
}

export function parseMetric(line: LogLine): MetricRecord | null {
  if (line.level !== "metric") return null;
  try {
    const rec = JSON.parse(line.text) as Partial<MetricRecord>;
    if (typeof rec.name !== "string" || typeof rec.value !== "number" || !Number.isFinite(rec.value)) return null;
    return { name: rec.name, value: rec.value, type: rec.type === "count" ? "count" : "observe", fields: rec.fields };
  } catch {
    return null;
  }
}

/**
 * Every metric record of a job, aggregated as lines arrive (history pages and live pushes in
 * any order, duplicates ignored). Independent of the log view's cap: a CDF keeps all samples.
 */
export class MetricStore {
  private readonly ids = new Set<number>();
  readonly series = new Map<string, MetricSeries>();

  /** Returns how many records were new. */
  add(batch: readonly LogLine[]): number {
    let added = 0;
    for (const line of batch) {
      if (line.level !== "metric" || this.ids.has(line.id)) continue;
      this.ids.add(line.id);
      const rec = parseMetric(line);
      if (!rec) continue;
      let s = this.series.get(rec.name);
      if (!s) {
        s = { name: rec.name, values: [], count: 0, hops: new Map() };
        this.series.set(rec.name, s);
      }
      if (rec.type === "count") {
        s.count += rec.value;
      } else {
        s.values.push(rec.value);
        const hops = rec.fields?.hops;
        if (typeof hops === "number" && Number.isInteger(hops)) s.hops.set(hops, (s.hops.get(hops) ?? 0) + 1);
      }
      added++;
    }
    return added;
  }

  /** Names of the metrics with observations, most observed first. */
  observedNames(): string[] {
    return [...this.series.values()]
      .filter((s) => s.values.length > 0)
      .sort((a, b) => b.values.length - a.values.length || a.name.localeCompare(b.name))
      .map((s) => s.name);
  }
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
