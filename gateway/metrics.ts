// The gateway's Prometheus metrics, served at /metrics behind the access guard (RBAC grants it
// to system:monitoring). One registry per gateway, so tests running several gateways in one
// process keep their figures apart.
import { Counter, Gauge, Registry } from "prom-client";

export interface DeprecatedApiLabels {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly subresource: string;
  readonly removed_release: string;
}

export class GatewayMetrics {
  readonly registry = new Registry();
  readonly #deprecated = new Gauge({
    name: "apiserver_requested_deprecated_apis",
    help: "Deprecated APIs that have been requested, by group, version, resource, subresource and the release that removes them.",
    labelNames: ["group", "version", "resource", "subresource", "removed_release"] as const,
    registers: [this.registry],
  });

  readonly #terminatedWatchers = new Counter({
    name: "apiserver_terminated_watchers_total",
    help: "Watches ended because the client fell behind (its queued events passed the bound), by resource.",
    labelNames: ["resource"] as const,
    registers: [this.registry],
  });

  readonly #unavailableApiService = new Gauge({
    name: "aggregator_unavailable_apiservice",
    help: "Gauge of APIServices which are marked as unavailable broken down by APIService name.",
    labelNames: ["name"] as const,
    registers: [this.registry],
  });

  readonly #unavailableApiServiceTotal = new Counter({
    name: "aggregator_unavailable_apiservice_total",
    help: "Counter of APIServices which are marked as unavailable broken down by APIService name and reason.",
    labelNames: ["name", "reason"] as const,
    registers: [this.registry],
  });

  // Audit (gateway/audit), upstream's series.
  readonly #auditEvents = new Counter({
    name: "apiserver_audit_event_total",
    help: "Counter of audit events generated and sent to the audit backend.",
    registers: [this.registry],
  });

  readonly #auditErrors = new Counter({
    name: "apiserver_audit_error_total",
    help: "Counter of audit events that failed to be audited properly. Plugin identifies the plugin affected by the error.",
    labelNames: ["plugin"] as const,
    registers: [this.registry],
  });

  readonly #auditLevels = new Counter({
    name: "apiserver_audit_level_total",
    help: "Counter of policy levels for audit events (1 per request).",
    labelNames: ["level"] as const,
    registers: [this.registry],
  });

  readonly #auditRejected = new Counter({
    name: "apiserver_audit_requests_rejected_total",
    help: "Counter of apiserver requests rejected due to an error in audit logging backend.",
    registers: [this.registry],
  });

  /** What the audit stage and its backends count. */
  readonly audit = {
    event: (): void => this.#auditEvents.inc(),
    level: (level: string): void => this.#auditLevels.inc({ level }),
    rejected: (): void => this.#auditRejected.inc(),
    pluginError: (plugin: string, events: number): void => this.#auditErrors.inc({ plugin }, events),
  };

  deprecatedApiRequested(labels: DeprecatedApiLabels): void {
    this.#deprecated.set({ ...labels }, 1);
  }

  /** `resource`: plural, then `.group` for named groups, as upstream labels it. */
  watcherTerminated(resource: string): void {
    this.#terminatedWatchers.inc({ resource });
  }

  /** A remote APIService's latest check: `reason` is why it is unavailable, undefined when it is available. */
  apiServiceChecked(name: string, reason: string | undefined, wasAvailable: boolean | undefined): void {
    this.#unavailableApiService.set({ name }, reason === undefined ? 0 : 1);
    if (reason !== undefined && wasAvailable !== false)
      this.#unavailableApiServiceTotal.inc({ name, reason });
  }

  /** An APIService that is gone, or no longer remote. */
  apiServiceGone(name: string): void {
    this.#unavailableApiService.remove({ name });
  }
}
