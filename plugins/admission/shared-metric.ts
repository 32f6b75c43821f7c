// Metrics of admission plugins: several chains (or plugin instances) over one registry share a
// metric instead of registering its name twice, which prom-client refuses.
import type { Metric, Registry } from "prom-client";

/** The registry's metric named `name`, or the one `make` registers. */
export function sharedMetric<T extends Metric>(registry: Registry, name: string, make: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make();
}
