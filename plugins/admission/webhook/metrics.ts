// Upstream's webhook metrics: call latency, calls by answer code, rejections by cause, and calls
// that failed open.
import { Counter, Histogram, type Registry } from "prom-client";
import { sharedMetric } from "../index.ts";

export type WebhookType = "admit" | "validating";
export type RejectionCause = "calling_webhook_error" | "no_error" | "apiserver_internal_error";

export interface WebhookMetrics {
  observeCall(
    name: string,
    type: WebhookType,
    operation: string,
    code: number,
    rejected: boolean,
    seconds: number,
  ): void;
  observeRejection(
    name: string,
    type: WebhookType,
    operation: string,
    cause: RejectionCause,
    code: number,
  ): void;
  observeFailOpen(name: string, type: WebhookType): void;
}

export function webhookMetrics(registry: Registry): WebhookMetrics {
  const latency = sharedMetric(
    registry,
    "apiserver_admission_webhook_admission_duration_seconds",
    () =>
      new Histogram({
        name: "apiserver_admission_webhook_admission_duration_seconds",
        help: "Admission webhook latency in seconds, by webhook name, type (admit or validating), operation and whether it was rejected.",
        labelNames: ["name", "type", "operation", "rejected"] as const,
        buckets: [0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10, 25],
        registers: [registry],
      }),
  );
  const requests = sharedMetric(
    registry,
    "apiserver_admission_webhook_request_total",
    () =>
      new Counter({
        name: "apiserver_admission_webhook_request_total",
        help: "Admission webhook calls, by webhook name, type, operation, HTTP answer code (0 without one) and whether it was rejected.",
        labelNames: ["name", "type", "operation", "code", "rejected"] as const,
        registers: [registry],
      }),
  );
  const rejections = sharedMetric(
    registry,
    "apiserver_admission_webhook_rejection_count",
    () =>
      new Counter({
        name: "apiserver_admission_webhook_rejection_count",
        help: "Requests refused because of admission webhooks, by webhook name, type, operation, cause and rejection code (codes above 600 count as 600).",
        labelNames: ["name", "type", "operation", "error_type", "rejection_code"] as const,
        registers: [registry],
      }),
  );
  const failOpen = sharedMetric(
    registry,
    "apiserver_admission_webhook_fail_open_count",
    () =>
      new Counter({
        name: "apiserver_admission_webhook_fail_open_count",
        help: "Webhook calls that failed and were ignored (failurePolicy Ignore), by webhook name and type.",
        labelNames: ["name", "type"] as const,
        registers: [registry],
      }),
  );
  return {
    observeCall(name, type, operation, code, rejected, seconds) {
      latency.observe({ name, type, operation, rejected: String(rejected) }, seconds);
      requests.inc({ name, type, operation, code: String(code), rejected: String(rejected) });
    },
    observeRejection(name, type, operation, cause, code) {
      rejections.inc({
        name,
        type,
        operation,
        error_type: cause,
        rejection_code: String(Math.min(code, 600)),
      });
    },
    observeFailOpen(name, type) {
      failOpen.inc({ name, type });
    },
  };
}
