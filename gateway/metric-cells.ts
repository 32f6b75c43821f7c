// Counters and histograms for the per-request series, kept as cells found by a key the caller
// builds once per request. prom-client validates, copies and hashes the label object on every
// observation, which for the five series a request updates cost more than serving a cached GET;
// here an observation is one map lookup and one bucket search. The cells are turned into
// prom-client's exposition values only when /metrics is scraped, and the registry formats them.
import type { Registry } from "prom-client";

type Labels = Record<string, string>;

interface ExportValue {
  readonly labels: Labels;
  readonly value: number;
  readonly metricName?: string;
}

interface Exported {
  readonly name: string;
  readonly help: string;
  readonly type: "counter" | "histogram";
  readonly values: ExportValue[];
  readonly aggregator: "sum";
}

abstract class Cells<C> {
  readonly name: string;
  readonly help: string;
  protected readonly cells = new Map<string, { readonly labels: Labels; readonly cell: C }>();

  constructor(name: string, help: string, registers: readonly Registry[]) {
    this.name = name;
    this.help = help;
    // The registry asks registered metrics for get() or getForPromString().
    for (const registry of registers) registry.registerMetric(this as never);
  }

  protected cell(key: string, labels: () => Labels, make: () => C): C {
    let found = this.cells.get(key);
    if (!found) {
      found = { labels: labels(), cell: make() };
      this.cells.set(key, found);
    }
    return found.cell;
  }

  reset(): void {
    this.cells.clear();
  }

  abstract getForPromString(): Promise<Exported>;

  get(): Promise<Exported> {
    return this.getForPromString();
  }
}

export class CounterCells extends Cells<{ value: number }> {
  /** Adds one to the series `key` names; `labels` is asked only the first time a key is seen. */
  inc(key: string, labels: () => Labels): void {
    this.cell(key, labels, () => ({ value: 0 })).value++;
  }

  async getForPromString(): Promise<Exported> {
    const values = [...this.cells.values()].map(({ labels, cell }) => ({ labels, value: cell.value }));
    return { name: this.name, help: this.help, type: "counter", values, aggregator: "sum" };
  }
}

interface HistogramCell {
  /** Per bucket (the last one past every bound), not cumulative. */
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

export class HistogramCells extends Cells<HistogramCell> {
  readonly #bounds: readonly number[];

  constructor(name: string, help: string, buckets: readonly number[], registers: readonly Registry[]) {
    super(name, help, registers);
    this.#bounds = [...buckets].sort((a, b) => a - b);
  }

  observe(key: string, labels: () => Labels, value: number): void {
    const cell = this.cell(key, labels, () => ({
      counts: new Float64Array(this.#bounds.length + 1),
      sum: 0,
      count: 0,
    }));
    // The first bound at or above the value (Prometheus' `le`).
    let lo = 0;
    let hi = this.#bounds.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.#bounds[mid] as number) < value) lo = mid + 1;
      else hi = mid;
    }
    cell.counts[lo] = (cell.counts[lo] ?? 0) + 1;
    cell.sum += value;
    cell.count++;
  }

  async getForPromString(): Promise<Exported> {
    const values: ExportValue[] = [];
    const bucket = `${this.name}_bucket`;
    for (const { labels, cell } of this.cells.values()) {
      let cumulative = 0;
      this.#bounds.forEach((le, i) => {
        cumulative += cell.counts[i] as number;
        values.push({ labels: { ...labels, le: String(le) }, value: cumulative, metricName: bucket });
      });
      values.push({ labels: { ...labels, le: "+Inf" }, value: cell.count, metricName: bucket });
      values.push({ labels, value: cell.sum, metricName: `${this.name}_sum` });
      values.push({ labels, value: cell.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: "histogram", values, aggregator: "sum" };
  }
}
