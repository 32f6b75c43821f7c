// The backend's own series, registered on the gateway's registry when it passes one:
// `mongodb_request_errors_total` (operation, type), named and labelled as upstream's
// etcd_request_errors_total, and `mongodb_transaction_retries_total` (operation, reason): write
// transactions run again after colliding with another writer (`conflict`) or after a transient
// failure such as a lost connection (`transient`). Latency is the gateway's
// `mongodb_request_duration_seconds`, measured around every store.
import { Counter, type Registry } from "prom-client";

export type RetryReason = "conflict" | "transient";

export interface MongoMetrics {
  /** A call failed for a reason other than the contract's answers (not found, exists, conflict). */
  failed(operation: string, key: string): void;
  retried(operation: string, reason: RetryReason): void;
}

export const noMetrics: MongoMetrics = { failed() {}, retried() {} };

/** The object type of a storage key (`/<group>/<resource>/...`): `pods`, `deployments.apps`. */
function keyType(key: string): string {
  const [, group = "", resource = ""] = key.split("/");
  return group === "" || group === "core" ? resource : `${resource}.${group}`;
}

function counter<L extends string>(registry: Registry, name: string, help: string, labels: L[]): Counter<L> {
  // One registry may see several stores (tests, restarts in one process): reuse the series.
  return (
    (registry.getSingleMetric(name) as Counter<L> | undefined) ??
    new Counter({ name, help: `[ALPHA] ${help}`, labelNames: labels, registers: [registry] })
  );
}

export function mongoMetrics(registry: Registry): MongoMetrics {
  const errors = counter(
    registry,
    "mongodb_request_errors_total",
    "MongoDB failed request counts for each operation and object type.",
    ["operation", "type"],
  );
  const retries = counter(
    registry,
    "mongodb_transaction_retries_total",
    "MongoDB write transactions run again, by operation and reason (conflict with another writer, or a transient failure).",
    ["operation", "reason"],
  );
  return {
    failed: (operation, key) => errors.inc({ operation, type: keyType(key) }),
    retried: (operation, reason) => retries.inc({ operation, reason }),
  };
}
