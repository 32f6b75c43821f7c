// Objects upstream's API server creates for itself at start, through its own loopback client:
// - the PriorityClasses system-cluster-critical and system-node-critical, created when missing
//   at start and not looked after afterwards (as upstream's post-start hook);
// - the flow-control bootstrap configuration (flowcontrol-bootstrap.ts), kept by the rules of
//   ensure.ts every minute as upstream does, and also whenever a FlowSchema or priority level
//   changes, so a deleted mandatory object is back at once rather than within the minute.
import type { Naming } from "../../../backends/naming/index.ts";
import type { ControllerClient } from "../client.ts";
import { Informer } from "../informer.ts";
import { ReconcileLoop } from "../reconcile-loop.ts";
import { ensuredObject, isDanglingBootstrapObject } from "./ensure.ts";
import {
  autoUpdateAnnotation,
  type BootstrapConfiguration,
  bootstrapConfiguration,
} from "./flowcontrol-bootstrap.ts";

type Json = Record<string, unknown> & { metadata: Record<string, unknown> & { name: string } };

/** Upstream's manager name for the configuration it writes. */
export const APF_FIELD_MANAGER = "api-priority-and-fairness-config-producer-v1";
/** Upstream's period for keeping the configuration. */
const PERIOD_MS = 60_000;

/** The critical PriorityClasses upstream's API server creates (scheduling v1). */
export function systemPriorityClasses(naming: Naming): Json[] {
  const apiVersion = `${naming.group("scheduling")}/v1`;
  return [
    {
      apiVersion,
      kind: "PriorityClass",
      metadata: { name: "system-node-critical" },
      value: 2_000_001_000,
      description: "Used for system critical pods that must not be moved from their current node.",
    },
    {
      apiVersion,
      kind: "PriorityClass",
      metadata: { name: "system-cluster-critical" },
      value: 2_000_000_000,
      description:
        "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.",
    },
  ];
}

export interface BootstrapObjectsOptions {
  readonly naming: Naming;
  /** Create the PriorityClasses (scheduling v1 is served). */
  readonly priorityClasses: boolean;
  /** Keep the flow-control configuration (flowcontrol v1beta3 is served). */
  readonly flowControl: boolean;
  readonly periodMs?: number;
}

export class BootstrapObjectsController {
  readonly #client: ControllerClient;
  readonly #options: BootstrapObjectsOptions;
  readonly #onError: (err: unknown, context: string) => void;
  readonly #config: BootstrapConfiguration;
  readonly #annotation: string;
  readonly #base: string;
  readonly #informers: Informer[] = [];
  readonly #loop: ReconcileLoop;
  #priorityClassesDone: boolean;

  constructor(
    client: ControllerClient,
    options: BootstrapObjectsOptions,
    onError: (err: unknown, context: string) => void,
  ) {
    this.#client = client;
    this.#options = options;
    this.#onError = onError;
    this.#config = bootstrapConfiguration(options.naming);
    this.#annotation = autoUpdateAnnotation(options.naming);
    this.#base = `/apis/${options.naming.group("flowcontrol")}/v1beta3`;
    this.#priorityClassesDone = !options.priorityClasses;
    this.#loop = new ReconcileLoop(() => this.#pass(), options.periodMs ?? PERIOD_MS);
    if (options.flowControl) {
      const kick = { upsert: () => this.#loop.kick(), deleted: () => this.#loop.kick() };
      for (const resource of ["prioritylevelconfigurations", "flowschemas"]) {
        this.#informers.push(
          new Informer(client, `${this.#base}/${resource}`, kick, (err) =>
            onError(err, `${resource} informer`),
          ),
        );
      }
    }
  }

  /** Synced once the PriorityClasses exist and the configuration has been put in place once. */
  get synced(): boolean {
    return this.#priorityClassesDone && this.#loop.succeeded;
  }

  async run(signal: AbortSignal): Promise<void> {
    await Promise.all([this.#loop.run(signal), ...this.#informers.map((i) => i.run(signal))]);
  }

  async #pass(): Promise<boolean> {
    try {
      if (!this.#priorityClassesDone) {
        await this.#createPriorityClasses();
        this.#priorityClassesDone = true;
      }
      if (this.#options.flowControl) await this.#ensureFlowControl();
      return true;
    } catch (err) {
      this.#onError(err, "bootstrap objects");
      return false;
    }
  }

  async #createPriorityClasses(): Promise<void> {
    const path = `/apis/${this.#options.naming.group("scheduling")}/v1/priorityclasses`;
    for (const pc of systemPriorityClasses(this.#options.naming)) {
      const current = await this.#client.call("GET", `${path}/${pc.metadata.name}`);
      if (current.status === 200) continue;
      if (current.status !== 404)
        throw new Error(`reading PriorityClass ${pc.metadata.name}: ${current.status}`);
      const reply = await this.#client.call("POST", path, pc);
      if (reply.status >= 300 && reply.status !== 409)
        throw new Error(
          `creating PriorityClass ${pc.metadata.name}: ${reply.status} ${JSON.stringify(reply.body)}`,
        );
    }
  }

  /** Suggested objects first, then mandatory ones, then removals: upstream's order. */
  async #ensureFlowControl(): Promise<void> {
    const c = this.#config;
    const levels = `${this.#base}/prioritylevelconfigurations`;
    const schemas = `${this.#base}/flowschemas`;
    for (const object of c.suggestedPriorityLevels) await this.#ensure(levels, object as Json, false);
    for (const object of c.suggestedFlowSchemas) await this.#ensure(schemas, object as Json, false);
    for (const object of c.mandatoryPriorityLevels) await this.#ensure(levels, object as Json, true);
    for (const object of c.mandatoryFlowSchemas) await this.#ensure(schemas, object as Json, true);
    await this.#removeDangling(levels, [
      ...c.suggestedPriorityLevels,
      ...c.mandatoryPriorityLevels,
    ] as Json[]);
    await this.#removeDangling(schemas, [...c.suggestedFlowSchemas, ...c.mandatoryFlowSchemas] as Json[]);
  }

  async #ensure(collection: string, bootstrap: Json, mandatory: boolean): Promise<void> {
    const name = bootstrap.metadata.name;
    const manager = `fieldManager=${APF_FIELD_MANAGER}`;
    const current = await this.#client.call("GET", `${collection}/${name}`);
    if (current.status !== 200 && current.status !== 404)
      throw new Error(`reading ${name}: ${current.status} ${JSON.stringify(current.body)}`);
    const write = ensuredObject(
      current.status === 200 ? current.body : undefined,
      bootstrap,
      mandatory,
      this.#annotation,
    );
    if (!write) return;
    const reply = write.create
      ? await this.#client.call("POST", `${collection}?${manager}`, write.object)
      : await this.#client.call("PUT", `${collection}/${name}?${manager}`, write.object);
    // 409: created or changed meanwhile; the next pass (kicked by that change) looks again.
    if (reply.status === 409) throw new Error(`${name} changed meanwhile`);
    if (reply.status >= 300)
      throw new Error(`writing ${name}: ${reply.status} ${JSON.stringify(reply.body)}`);
  }

  async #removeDangling(collection: string, bootstrap: readonly Json[]): Promise<void> {
    const names = new Set(bootstrap.map((o) => o.metadata.name));
    const listed = await this.#client.must("GET", collection);
    for (const item of listed.body.items as Json[]) {
      if (!isDanglingBootstrapObject(item, names, this.#annotation)) continue;
      const reply = await this.#client.call("DELETE", `${collection}/${item.metadata.name}`);
      if (reply.status >= 300 && reply.status !== 404)
        throw new Error(`deleting ${item.metadata.name}: ${reply.status} ${JSON.stringify(reply.body)}`);
    }
  }
}
