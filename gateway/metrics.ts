// The gateway's Prometheus metrics, served at /metrics behind the access guard (RBAC grants it
// to system:monitoring). One registry per gateway, so tests running several gateways in one
// process keep their figures apart.
//
// Series carry upstream's names, types, labels, buckets and stability levels: the help text
// starts with `[STABLE]`/`[BETA]`/`[ALPHA]`, a deprecated series' with `(Deprecated since X)` after
// it, and a series deprecated before the emulated release is hidden (recorded, not served) unless
// `--show-hidden-metrics-for-version` names the previous minor release, as upstream's metrics
// framework does.
import {
  Counter,
  type CounterConfiguration,
  collectDefaultMetrics,
  Gauge,
  type GaugeConfiguration,
  Histogram,
  type HistogramConfiguration,
  Registry,
} from "prom-client";
import { EMULATED_RELEASE } from "./discovery/version.ts";
import { CounterCells, HistogramCells } from "./metric-cells.ts";

export interface DeprecatedApiLabels {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly subresource: string;
  readonly removed_release: string;
}

export type StabilityLevel = "ALPHA" | "BETA" | "STABLE";

export interface MetricStability {
  readonly stability: StabilityLevel;
  /** `<major>.<minor>.<patch>`: the release that deprecated the series. */
  readonly deprecatedVersion?: string;
}

/** Upstream's request latency buckets (its SLO dashboards are built on them). */
export const REQUEST_DURATION_BUCKETS = [
  0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60,
];
const SLO_DURATION_BUCKETS = REQUEST_DURATION_BUCKETS.slice(2);
/** 1 KB to 1 GB, ten times each step. */
const RESPONSE_SIZE_BUCKETS = [1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9];
/** 1 KiB to 128 KiB, doubling. */
const WATCH_EVENT_SIZE_BUCKETS = [1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072];

/** The only value `--show-hidden-metrics-for-version` accepts: the previous minor release. */
export const SHOW_HIDDEN_METRICS_VERSION = `${EMULATED_RELEASE.major}.${EMULATED_RELEASE.minor - 1}`;

/** Why a `--show-hidden-metrics-for-version` value is refused (upstream's wording), or undefined. */
export function showHiddenMetricsError(value: string | undefined): string | undefined {
  if (value === undefined || value === "" || value === SHOW_HIDDEN_METRICS_VERSION) return undefined;
  return `--show-hidden-metrics-for-version must be omitted or have the value '${SHOW_HIDDEN_METRICS_VERSION}'. Only the previous minor version is allowed`;
}

/** The request labels upstream breaks its request series out by. */
export interface RequestLabels {
  readonly verb: string;
  readonly dry_run: string;
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly subresource: string;
  readonly scope: string;
  readonly component: string;
}

const REQUEST_LABELS = ["verb", "group", "version", "resource", "subresource", "scope", "component"] as const;
const WATCH_LABELS = ["group", "version", "kind"] as const;

export interface GatewayMetricsOptions {
  /** `--show-hidden-metrics-for-version`: serve the series hidden in this release. */
  readonly showHiddenMetricsForVersion?: string;
  /** The Node process series (process_*, nodejs_*); off for unit tests' many registries. */
  readonly processMetrics?: boolean;
}

export class GatewayMetrics {
  readonly registry = new Registry();
  readonly #showHidden: boolean;

  readonly #deprecated = new Gauge({
    name: "apiserver_requested_deprecated_apis",
    help: "[STABLE] Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.",
    labelNames: ["group", "version", "resource", "subresource", "removed_release"] as const,
    registers: [this.registry],
  });

  readonly #terminatedWatchers = new Counter({
    name: "apiserver_terminated_watchers_total",
    help: "[ALPHA] Counter of watchers closed due to unresponsiveness broken by resource type.",
    labelNames: ["resource"] as const,
    registers: [this.registry],
  });

  readonly #unavailableApiService = new Gauge({
    name: "aggregator_unavailable_apiservice",
    help: "[ALPHA] Gauge of APIServices which are marked as unavailable broken down by APIService name.",
    labelNames: ["name"] as const,
    registers: [this.registry],
  });

  readonly #unavailableApiServiceTotal = new Counter({
    name: "aggregator_unavailable_apiservice_total",
    help: "[ALPHA] Counter of APIServices which are marked as unavailable broken down by APIService name and reason.",
    labelNames: ["name", "reason"] as const,
    registers: [this.registry],
  });

  // client-go's leader election series, as upstream's controller manager exposes it.
  readonly #leaderStatus = new Gauge({
    name: "leader_election_master_status",
    help: "[ALPHA] Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.",
    labelNames: ["name"] as const,
    registers: [this.registry],
  });

  // The series every request updates are cells (metric-cells.ts), not prom-client metrics.
  readonly #requests: CounterCells;
  readonly #latency: HistogramCells;
  readonly #sloLatency: HistogramCells;
  readonly #sliLatency: HistogramCells;
  readonly #responseSizes: HistogramCells;
  readonly #longRunning: Gauge<(typeof REQUEST_LABELS)[number]>;
  readonly #tlsErrors: Counter;
  readonly #watchEvents: Counter<(typeof WATCH_LABELS)[number]>;
  readonly #watchEventSizes: Histogram<(typeof WATCH_LABELS)[number]>;
  readonly #registeredWatchers: Gauge<(typeof WATCH_LABELS)[number]>;
  readonly #storageLists = new Map<string, Counter<"resource">>();
  #storageLatency: Histogram<"operation" | "type"> | undefined;
  /** Per request kind: the most in flight within the current one-second window, and when it began. */
  readonly #inflightPeaks = new Map<string, { current: number; peak: number; windowStart: number }>();

  constructor(options: GatewayMetricsOptions = {}) {
    this.#showHidden = options.showHiddenMetricsForVersion === SHOW_HIDDEN_METRICS_VERSION;
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry });
    const cells = <T>(
      make: (name: string, help: string, registers: Registry[]) => T,
      name: string,
      help: string,
      stability: MetricStability,
    ) => {
      const described = this.describe(help, stability);
      return make(name, described.help, described.registers);
    };
    this.#requests = cells(
      (name, help, registers) => new CounterCells(name, help, registers),
      "apiserver_request_total",
      "Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.",
      { stability: "STABLE" },
    );
    const histogram = (buckets: readonly number[]) => (name: string, help: string, registers: Registry[]) =>
      new HistogramCells(name, help, buckets, registers);
    this.#latency = cells(
      histogram(REQUEST_DURATION_BUCKETS),
      "apiserver_request_duration_seconds",
      "Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.",
      { stability: "STABLE" },
    );
    const sloHelp =
      "Response latency distribution (not counting webhook duration and priority & fairness queue wait times) in seconds for each verb, group, version, resource, subresource, scope and component.";
    this.#sloLatency = cells(
      histogram(SLO_DURATION_BUCKETS),
      "apiserver_request_slo_duration_seconds",
      sloHelp,
      {
        stability: "ALPHA",
        deprecatedVersion: "1.27.0",
      },
    );
    this.#sliLatency = cells(
      histogram(SLO_DURATION_BUCKETS),
      "apiserver_request_sli_duration_seconds",
      sloHelp,
      {
        stability: "ALPHA",
      },
    );
    this.#responseSizes = cells(
      histogram(RESPONSE_SIZE_BUCKETS),
      "apiserver_response_sizes",
      "Response size distribution in bytes for each group, version, verb, resource, subresource, scope and component.",
      { stability: "STABLE" },
    );
    this.#longRunning = this.gauge(
      {
        name: "apiserver_longrunning_requests",
        help: "Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.",
        labelNames: REQUEST_LABELS,
      },
      { stability: "STABLE" },
    );
    const peaks = this.#inflightPeaks;
    this.gauge(
      {
        name: "apiserver_current_inflight_requests",
        help: "Maximal number of currently used inflight request limit of this apiserver per request kind in last second.",
        labelNames: ["request_kind"],
        collect() {
          const now = Date.now();
          for (const [kind, p] of peaks) {
            // A window that ended long ago says nothing about the last second: report what is in flight now.
            this.set({ request_kind: kind }, now - p.windowStart > 2000 ? p.current : p.peak);
          }
        },
      },
      { stability: "STABLE" },
    );
    for (const kind of ["readOnly", "mutating"]) peaks.set(kind, { current: 0, peak: 0, windowStart: 0 });
    this.#tlsErrors = this.counter(
      {
        name: "apiserver_tls_handshake_errors_total",
        help: "Number of requests dropped with 'TLS handshake error from' error",
      },
      { stability: "ALPHA" },
    );
    this.#watchEvents = this.counter(
      {
        name: "apiserver_watch_events_total",
        help: "Number of events sent in watch clients",
        labelNames: WATCH_LABELS,
      },
      { stability: "ALPHA" },
    );
    this.#watchEventSizes = this.histogram(
      {
        name: "apiserver_watch_events_sizes",
        help: "Watch event size distribution in bytes",
        labelNames: WATCH_LABELS,
        buckets: WATCH_EVENT_SIZE_BUCKETS,
      },
      { stability: "ALPHA" },
    );
    // Upstream 1.27 no longer has this series: kept hidden (shown with
    // --show-hidden-metrics-for-version) for dashboards that still read it.
    this.#registeredWatchers = this.gauge(
      {
        name: "apiserver_registered_watchers",
        help: "Number of currently registered watchers for a given resources",
        labelNames: WATCH_LABELS,
      },
      { stability: "ALPHA", deprecatedVersion: "1.26.0" },
    );
  }

  /**
   * The help text and registries of a series at a stability level: what other modules use to
   * add their series (`new Counter({ name, ...metrics.describe(help, { stability: "ALPHA" }) })`).
   */
  describe(help: string, stability: MetricStability): { help: string; registers: Registry[] } {
    const deprecated = stability.deprecatedVersion
      ? `(Deprecated since ${stability.deprecatedVersion}) `
      : "";
    const hidden = stability.deprecatedVersion !== undefined && this.#isHidden(stability.deprecatedVersion);
    return {
      help: `[${stability.stability}] ${deprecated}${help}`,
      registers: hidden && !this.#showHidden ? [] : [this.registry],
    };
  }

  counter<L extends string>(config: CounterConfiguration<L>, stability: MetricStability): Counter<L> {
    return new Counter({ ...config, ...this.describe(config.help, stability) });
  }

  gauge<L extends string>(config: GaugeConfiguration<L>, stability: MetricStability): Gauge<L> {
    return new Gauge({ ...config, ...this.describe(config.help, stability) });
  }

  histogram<L extends string>(config: HistogramConfiguration<L>, stability: MetricStability): Histogram<L> {
    return new Histogram({ ...config, ...this.describe(config.help, stability) });
  }

  /** Deprecated in an earlier minor release than the one emulated: hidden from this release on. */
  #isHidden(deprecatedVersion: string): boolean {
    const [major, minor] = deprecatedVersion.split(".").map(Number);
    if (major === undefined || minor === undefined) return false;
    return (
      major < EMULATED_RELEASE.major || (major === EMULATED_RELEASE.major && minor < EMULATED_RELEASE.minor)
    );
  }

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

  // A cell per level: counted on every audited request, where prom-client's labelled inc() costs.
  readonly #auditLevels = new CounterCells(
    "apiserver_audit_level_total",
    "Counter of policy levels for audit events (1 per request).",
    [this.registry],
  );

  readonly #auditRejected = new Counter({
    name: "apiserver_audit_requests_rejected_total",
    help: "Counter of apiserver requests rejected due to an error in audit logging backend.",
    registers: [this.registry],
  });

  /** What the audit stage and its backends count. */
  readonly audit = {
    event: (): void => this.#auditEvents.inc(),
    level: (level: string): void => this.#auditLevels.inc(level, () => ({ level })),
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
  /** Whether this gateway holds the Lease `name`. */
  leaderElection(name: string, leading: boolean): void {
    this.#leaderStatus.set({ name }, leading ? 1 : 0);
  }

  apiServiceGone(name: string): void {
    this.#unavailableApiService.remove({ name });
  }

  /** A finished request: the counter, latency and (for reads) response size series. */
  requestServed(
    labels: RequestLabels,
    code: number,
    seconds: number,
    responseBytes: number | undefined,
  ): void {
    // Keys from the label values, built once; the label objects only for a series' first request.
    const rest = `${labels.verb}\u0000${labels.group}\u0000${labels.version}\u0000${labels.resource}\u0000${labels.subresource}\u0000${labels.scope}\u0000${labels.component}`;
    const withDryRun = `${rest}\u0000${labels.dry_run}`;
    const restLabels = () => {
      const { dry_run: _dryRun, ...others } = labels;
      return others;
    };
    this.#requests.inc(`${withDryRun}\u0000${code}`, () => ({ ...labels, code: String(code) }));
    this.#latency.observe(withDryRun, () => ({ ...labels }), seconds);
    this.#sloLatency.observe(rest, restLabels, seconds);
    this.#sliLatency.observe(rest, restLabels, seconds);
    if (responseBytes !== undefined) this.#responseSizes.observe(rest, restLabels, responseBytes);
  }

  /** A long-running request began. */
  longRunningStarted(labels: RequestLabels): void {
    const { dry_run: _dryRun, ...rest } = labels;
    this.#longRunning.inc(rest);
  }

  /** A long-running request that began with these labels ended. */
  longRunningEnded(labels: RequestLabels): void {
    const { dry_run: _dryRun, ...rest } = labels;
    this.#longRunning.dec(rest);
  }

  /** The in-flight limiter's counts changed (`readOnly`, `mutating`). */
  inflightChanged(kind: "readOnly" | "mutating", current: number): void {
    const p = this.#inflightPeaks.get(kind);
    if (!p) return;
    const now = Date.now();
    if (now - p.windowStart >= 1000) {
      p.windowStart = now;
      p.peak = current;
    }
    p.current = current;
    p.peak = Math.max(p.peak, current);
  }

  tlsHandshakeFailed(): void {
    this.#tlsErrors.inc();
  }

  /** A watch began streaming objects of this kind; the returned function ends it. */
  watcherRegistered(group: string, version: string, kind: string): () => void {
    this.#registeredWatchers.inc({ group, version, kind });
    return () => this.#registeredWatchers.dec({ group, version, kind });
  }

  /**
   * The store's request latency: `etcd_request_duration_seconds` for etcd, as upstream, and the
   * same series under the backend's own name for the others (`embedded_request_duration_seconds`).
   */
  storageRequest(backend: string, operation: string, type: string, seconds: number): void {
    this.#storageLatency ??= this.histogram(
      {
        name: `${backend.replace(/[^a-zA-Z0-9_]/g, "_")}_request_duration_seconds`,
        help: `${backend === "etcd" ? "Etcd" : `The ${backend} store's`} request latency in seconds for each operation and object type.`,
        labelNames: ["operation", "type"],
        buckets: REQUEST_DURATION_BUCKETS,
      },
      { stability: "ALPHA" },
    );
    this.#storageLatency.observe({ operation, type }, seconds);
  }

  /** A LIST served from the store (not the watch cache): objects read, tested and returned. */
  storageListed(resource: string, fetched: number, evaluated: number, returned: number): void {
    if (this.#storageLists.size === 0) {
      const series = [
        ["apiserver_storage_list_total", "Number of LIST requests served from storage"],
        [
          "apiserver_storage_list_fetched_objects_total",
          "Number of objects read from storage in the course of serving a LIST request",
        ],
        [
          "apiserver_storage_list_evaluated_objects_total",
          "Number of objects tested in the course of serving a LIST request from storage",
        ],
        [
          "apiserver_storage_list_returned_objects_total",
          "Number of objects returned for a LIST request from storage",
        ],
      ] as const;
      for (const [name, help] of series)
        this.#storageLists.set(
          name,
          this.counter({ name, help, labelNames: ["resource"] }, { stability: "ALPHA" }),
        );
    }
    this.#storageLists.get("apiserver_storage_list_total")?.inc({ resource });
    this.#storageLists.get("apiserver_storage_list_fetched_objects_total")?.inc({ resource }, fetched);
    this.#storageLists.get("apiserver_storage_list_evaluated_objects_total")?.inc({ resource }, evaluated);
    this.#storageLists.get("apiserver_storage_list_returned_objects_total")?.inc({ resource }, returned);
  }

  /** `apiserver_storage_objects`, read at each scrape from `count` (resource label, objects). */
  countStoredObjects(count: () => Iterable<readonly [string, number]>): void {
    this.gauge(
      {
        name: "apiserver_storage_objects",
        help: "Number of stored objects at the time of last check split by kind.",
        labelNames: ["resource"],
        collect() {
          this.reset();
          for (const [resource, n] of count()) this.set({ resource }, n);
        },
      },
      { stability: "STABLE" },
    );
  }

  watchEventSent(group: string, version: string, kind: string, bytes: number): void {
    this.#watchEvents.inc({ group, version, kind });
    this.#watchEventSizes.observe({ group, version, kind }, bytes);
  }
}
