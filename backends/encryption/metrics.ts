// apiserver_storage_transformation_operations_total and _duration_seconds, with upstream's
// labels and buckets (ALPHA in 1.27). The status label is a gRPC code name, as upstream writes it:
// OK, or Unknown for a failure that carries no code.
import { Counter, Histogram, type Registry } from "prom-client";
import type { TransformationRecorder } from "./transformer.ts";

/** Exponential buckets from 5µs, doubling, 25 of them. */
const BUCKETS = Array.from({ length: 25 }, (_, i) => 5e-6 * 2 ** i);

export function transformationMetrics(registry: Registry): TransformationRecorder {
  const operations =
    (registry.getSingleMetric("apiserver_storage_transformation_operations_total") as
      | Counter<"transformation_type" | "transformer_prefix" | "status">
      | undefined) ??
    new Counter({
      name: "apiserver_storage_transformation_operations_total",
      help: "[ALPHA] Total number of transformations.",
      labelNames: ["transformation_type", "transformer_prefix", "status"] as const,
      registers: [registry],
    });
  const duration =
    (registry.getSingleMetric("apiserver_storage_transformation_duration_seconds") as
      | Histogram<"transformation_type" | "transformer_prefix">
      | undefined) ??
    new Histogram({
      name: "apiserver_storage_transformation_duration_seconds",
      help: "[ALPHA] Latencies in seconds of value transformation operations.",
      labelNames: ["transformation_type", "transformer_prefix"] as const,
      buckets: BUCKETS,
      registers: [registry],
    });
  return {
    record(type, prefix, seconds, err) {
      const status = err === undefined ? "OK" : grpcCodeName(err);
      operations.inc({ transformation_type: type, transformer_prefix: prefix, status });
      // Only successful transformations are timed, as upstream.
      if (err === undefined)
        duration.observe({ transformation_type: type, transformer_prefix: prefix }, seconds);
    },
  };
}

const GRPC_CODES = [
  "OK",
  "Canceled",
  "Unknown",
  "InvalidArgument",
  "DeadlineExceeded",
  "NotFound",
  "AlreadyExists",
  "PermissionDenied",
  "ResourceExhausted",
  "FailedPrecondition",
  "Aborted",
  "OutOfRange",
  "Unimplemented",
  "Internal",
  "Unavailable",
  "DataLoss",
  "Unauthenticated",
];

function grpcCodeName(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "number" ? (GRPC_CODES[code] ?? "Unknown") : "Unknown";
}
