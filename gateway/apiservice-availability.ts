// Whether each remote APIService can be used, as upstream's availability controller decides it:
// its Service must exist and listen on the port, have ready endpoints, and answer the group
// version's discovery document. The outcome is written to the APIService's `Available` condition,
// counted in the aggregator metrics, keeps requests for a dead extension from waiting on it (503
// at once), and the discovery documents fetched are what the gateway's discovery shows of the
// group (the last good one marked stale while the extension is failing).
import {
  type ApiServiceEntry,
  type ApiServiceTable,
  type ProxiedUser,
  type RemoteBackend,
  readResourceList,
} from "../backends/aggregator/index.ts";
import { ServiceUnreachableError } from "../backends/services/index.ts";
import type { ControllerClient } from "../plugins/controllers/index.ts";
import type { RemoteGroupVersion } from "./discovery/index.ts";
import type { GatewayMetrics } from "./metrics.ts";

/** The aggregator's own identity on probes, as upstream sends it. */
export const AGGREGATOR: ProxiedUser = {
  username: "system:kube-aggregator",
  groups: ["system:masters"],
  extra: {},
};
/** How long a probe may take (upstream's discovery check timeout). */
const PROBE_TIMEOUT_MS = 5_000;

export interface Availability {
  readonly available: boolean;
  readonly reason: string;
  readonly message: string;
}

/** The condition's time: when `available` last changed. */
function timestamp(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** A remote group version as discovery shows it. */
export interface RemoteDiscovery {
  readonly entry: ApiServiceEntry;
  /** The extension's APIResourceList of the group version. */
  readonly resources: Record<string, unknown>;
  /** False once the latest probe failed after an earlier success. */
  readonly fresh: boolean;
}

export interface AvailabilityOptions {
  readonly table: ApiServiceTable;
  readonly backend: RemoteBackend;
  /** Writes the APIServices' status (the gateway's loopback client). */
  readonly client: ControllerClient;
  /** `apiregistration.<domain>` */
  readonly group: string;
  readonly metrics?: GatewayMetrics;
  /**
   * Whether this gateway writes the status (default: always). Replicas each probe for their own
   * routing; only the elected one writes, so they do not overwrite each other's verdicts.
   */
  readonly writesStatus?: () => boolean;
  /** How often every remote APIService is checked again. */
  readonly periodMs: number;
  readonly onError: (err: unknown, context: string) => void;
}

export class ApiServiceAvailability {
  readonly #o: AvailabilityOptions;
  readonly #state = new Map<string, Availability & { readonly since: string }>();
  readonly #discovery = new Map<string, RemoteDiscovery>();
  #generation = 0;
  #wake: (() => void) | undefined;
  #pending = false;
  /** Write every status at the next check, changed or not (leadership just came here). */
  #rewrite = false;
  synced = false;

  constructor(options: AvailabilityOptions) {
    this.#o = options;
  }

  /** The latest outcome for an APIService; undefined before its first check. */
  state(name: string): Availability | undefined {
    return this.#state.get(name);
  }

  /** The remote group versions discovery should show. */
  discovery(): RemoteDiscovery[] {
    return [...this.#discovery.values()];
  }

  /** Changes whenever what discovery shows does. */
  get generation(): number {
    return this.#generation;
  }

  /** Checks everything again soon and writes every status: this gateway now writes them. */
  rewriteStatus(): void {
    this.#rewrite = true;
    this.recheck();
  }

  /** Checks everything again soon (an APIService, Service or EndpointSlice changed). */
  recheck(): void {
    this.#pending = true;
    this.#wake?.();
  }

  async run(signal: AbortSignal): Promise<void> {
    signal.addEventListener("abort", () => this.#wake?.(), { once: true });
    let tableGeneration = -1;
    while (!signal.aborted) {
      this.#pending = false;
      tableGeneration = this.#o.table.generation;
      const rewrite = this.#rewrite;
      this.#rewrite = false;
      await this.#checkAll(rewrite);
      this.synced = true;
      if (this.#pending || this.#o.table.generation !== tableGeneration) continue;
      // Stopped during the checks: the abort found no wait to end, so none may start.
      if (signal.aborted) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.#o.periodMs);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = undefined;
    }
  }

  async #checkAll(rewrite: boolean): Promise<void> {
    const remotes = this.#o.table.remotes();
    const names = new Set(remotes.map((e) => e.name));
    for (const name of [...this.#state.keys()]) {
      if (names.has(name)) continue;
      this.#state.delete(name);
      this.#o.metrics?.apiServiceGone(name);
      if (this.#discovery.delete(name)) this.#generation++;
    }
    await Promise.all(remotes.map((entry) => this.#check(entry, rewrite)));
  }

  async #check(entry: ApiServiceEntry, rewrite: boolean): Promise<void> {
    const outcome = await this.#probe(entry);
    const before = this.#state.get(entry.name);
    const since =
      before && before.available === outcome.availability.available ? before.since : timestamp(new Date());
    this.#state.set(entry.name, { ...outcome.availability, since });
    if (outcome.resources) {
      this.#discovery.set(entry.name, { entry, resources: outcome.resources, fresh: true });
      this.#generation++;
    } else {
      const last = this.#discovery.get(entry.name);
      if (last?.fresh) {
        this.#discovery.set(entry.name, { ...last, fresh: false });
        this.#generation++;
      }
    }
    const a = outcome.availability;
    const changed =
      before?.available !== a.available || before?.reason !== a.reason || before?.message !== a.message;
    if (changed)
      this.#o.metrics?.apiServiceChecked(entry.name, a.available ? undefined : a.reason, before?.available);
    if ((changed || rewrite) && (this.#o.writesStatus?.() ?? true)) await this.#writeStatus(entry, a, since);
  }

  async #probe(
    entry: ApiServiceEntry,
  ): Promise<{ availability: Availability; resources?: Record<string, unknown> }> {
    const path = `/apis/${entry.group}/${entry.version}`;
    let answer: { url: string; status: number; body: string };
    try {
      answer = await this.#o.backend.get(entry, path, AGGREGATOR, PROBE_TIMEOUT_MS);
    } catch (err) {
      if (err instanceof ServiceUnreachableError)
        return { availability: { available: false, reason: err.reason, message: err.message } };
      return {
        availability: {
          available: false,
          reason: "FailedDiscoveryCheck",
          message: `failing or missing response from ${(err as Error).message}`,
        },
      };
    }
    if (answer.status < 200 || answer.status > 299)
      return {
        availability: {
          available: false,
          reason: "FailedDiscoveryCheck",
          message: `failing or missing response from ${answer.url}: bad status from ${answer.url}: ${answer.status}`,
        },
      };
    const read = readResourceList(answer.body);
    if (!read.list)
      return {
        availability: {
          available: false,
          reason: "FailedDiscoveryCheck",
          message: `failing or missing response from ${answer.url}: ${read.problem}`,
        },
      };
    return {
      availability: { available: true, reason: "Passed", message: "all checks passed" },
      resources: read.list,
    };
  }

  async #writeStatus(entry: ApiServiceEntry, a: Availability, since: string): Promise<void> {
    const condition = {
      type: "Available",
      status: a.available ? "True" : "False",
      lastTransitionTime: since,
      reason: a.reason,
      message: a.message,
    };
    try {
      await this.#o.client.must(
        "PATCH",
        `/apis/${this.#o.group}/v1/apiservices/${entry.name}/status`,
        { status: { conditions: [condition] } },
        "application/merge-patch+json",
      );
    } catch (err) {
      this.#o.onError(err, `status of APIService ${entry.name}`);
    }
  }
}

/** What discovery shows of the extensions: their group versions with the lists they answered. */
export function remoteGroupVersions(availability: ApiServiceAvailability | undefined): RemoteGroupVersion[] {
  return (availability?.discovery() ?? []).map((d) => ({
    group: d.entry.group,
    version: d.entry.version,
    groupPriorityMinimum: d.entry.groupPriorityMinimum,
    versionPriority: d.entry.versionPriority,
    resources: d.resources,
    fresh: d.fresh,
  }));
}
