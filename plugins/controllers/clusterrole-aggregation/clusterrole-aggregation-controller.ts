// Keeps the rules of every ClusterRole with an aggregationRule equal to the union of the rules of
// the other ClusterRoles its label selectors match (in name order, without repeats), as
// upstream's clusterrole-aggregation controller does. Any change to any ClusterRole re-checks
// them all; writes are plain updates guarded by resourceVersion.
import { setTimeout as delay } from "node:timers/promises";
import type { Naming } from "../../../backends/naming/index.ts";
import { labelSelectorFromObject } from "../../../backends/selection/index.ts";
import { type PolicyRule, rulesOf, ruleToJson, sameRule } from "../../authorization/rbac/index.ts";
import type { ControllerClient } from "../client.ts";
import { Informer, type InformerObject } from "../informer.ts";

type Json = Record<string, unknown>;

function record(value: unknown): Json | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

function labelsOf(object: Json): Record<string, string> {
  return (record(record(object.metadata)?.labels) ?? {}) as Record<string, string>;
}

/** The rules an aggregated ClusterRole should hold, given all ClusterRoles by name. */
export function aggregatedRules(role: Json, all: ReadonlyMap<string, Json>): PolicyRule[] {
  const name = String(record(role.metadata)?.name ?? "");
  const selectors = record(role.aggregationRule)?.clusterRoleSelectors;
  const rules: PolicyRule[] = [];
  const names = [...all.keys()].sort();
  for (const raw of Array.isArray(selectors) ? selectors : []) {
    const selector = labelSelectorFromObject(raw);
    for (const other of names) {
      if (other === name) continue;
      const candidate = all.get(other)!;
      if (!selector.matches(labelsOf(candidate))) continue;
      for (const rule of rulesOf(candidate)) {
        if (!rules.some((r) => sameRule(r, rule))) rules.push(rule);
      }
    }
  }
  return rules;
}

export class ClusterRoleAggregationController {
  readonly #client: ControllerClient;
  readonly #path: string;
  readonly #onError: (err: unknown, context: string) => void;
  readonly #informer: Informer;
  readonly #roles = new Map<string, Json>();
  #dirty = false;
  #draining: Promise<void> | undefined;
  #signal: AbortSignal | undefined;

  constructor(client: ControllerClient, naming: Naming, onError: (err: unknown, context: string) => void) {
    this.#client = client;
    this.#onError = onError;
    this.#path = `/apis/${naming.group("rbac.authorization")}/v1/clusterroles`;
    this.#informer = new Informer(
      client,
      this.#path,
      {
        upsert: (role) => this.#changed(role, false),
        deleted: (role) => this.#changed(role, true),
      },
      (err) => onError(err, "clusterrole informer"),
    );
  }

  get synced(): boolean {
    return this.#informer.synced;
  }

  async run(signal: AbortSignal): Promise<void> {
    this.#signal = signal;
    await this.#informer.run(signal);
    await this.#draining;
  }

  #changed(role: InformerObject, deleted: boolean): void {
    if (deleted) this.#roles.delete(role.metadata.name);
    else this.#roles.set(role.metadata.name, role);
    this.#dirty = true;
    this.#kick();
  }

  /** Starts a pass unless one runs; a change that lands as a pass ends starts the next. */
  #kick(): void {
    if (this.#draining) return;
    this.#draining = this.#drain().finally(() => {
      this.#draining = undefined;
      if (this.#dirty && !this.#signal?.aborted) this.#kick();
    });
  }

  async #drain(): Promise<void> {
    const signal = this.#signal;
    // Decide on the whole set only: a partial first list would aggregate too little.
    while (!this.#informer.synced && !signal?.aborted) await delay(20, undefined, { signal }).catch(() => {});
    while (this.#dirty && !signal?.aborted) {
      this.#dirty = false;
      for (const role of [...this.#roles.values()]) {
        if (signal?.aborted) return;
        if (!record(role.aggregationRule)) continue;
        await this.#sync(role);
      }
    }
  }

  async #sync(role: Json): Promise<void> {
    const name = String(record(role.metadata)?.name ?? "");
    try {
      const wanted = aggregatedRules(role, this.#roles);
      const current = rulesOf(role);
      if (wanted.length === current.length && wanted.every((r, i) => sameRule(r, current[i]!))) return;
      const reply = await this.#client.call("PUT", `${this.#path}/${encodeURIComponent(name)}`, {
        ...role,
        rules: wanted.map(ruleToJson),
      });
      if (reply.status === 409) {
        // Changed meanwhile: the informer brings the new version; look again then.
        this.#dirty = true;
        await delay(50, undefined, { signal: this.#signal }).catch(() => {});
        return;
      }
      if (reply.status === 404) return;
      if (reply.status >= 300) {
        throw new Error(
          `updating clusterrole ${name}: ${reply.status} ${JSON.stringify(reply.body?.message ?? reply.body)}`,
        );
      }
      // Our own write is the newest version; keep it so the next pass compares against it.
      if (record(reply.body)) this.#roles.set(name, reply.body as Json);
    } catch (err) {
      this.#onError(err, `aggregating clusterrole ${name}`);
    }
  }
}
