// Charges admitted but not yet visible in the informers. A recalculation that ran between the
// charge and the object's arrival in the watch cache would otherwise forget it and let quota be
// exceeded; these entries stand in for such objects until the informer shows them, or expire.
import type { JsonObject } from "../index.ts";
import { asObject } from "./pods.ts";

export interface PendingCharge {
  readonly group: string;
  readonly resource: string;
  readonly namespace: string;
  /** Undefined for a create that asked for a generated name. */
  readonly name: string | undefined;
  readonly object: JsonObject;
  /** For updates: the revision being replaced; the entry stands while the informer still has it. */
  readonly replacing: string | undefined;
  readonly expires: number;
}

function nameOf(o: JsonObject): string | undefined {
  const n = asObject(o.metadata)?.name;
  return typeof n === "string" ? n : undefined;
}

function revisionOf(o: JsonObject): string | undefined {
  const rv = asObject(o.metadata)?.resourceVersion;
  return typeof rv === "string" ? rv : undefined;
}

export class PendingCharges {
  #entries: PendingCharge[] = [];

  add(entry: PendingCharge): void {
    this.#entries.push(entry);
  }

  /** Drops expired entries; returns the namespaces they were in. */
  expire(now: number): Set<string> {
    const gone = new Set<string>();
    this.#entries = this.#entries.filter((e) => {
      if (e.expires > now) return true;
      gone.add(e.namespace);
      return false;
    });
    return gone;
  }

  /** An informer event: entries the event shows to have landed (or become moot) are dropped. */
  observe(
    group: string,
    resource: string,
    type: "ADDED" | "MODIFIED" | "DELETED",
    object: JsonObject,
    isNew: boolean,
  ): void {
    const ns = asObject(object.metadata)?.namespace;
    const name = nameOf(object);
    const same = (e: PendingCharge) => e.group === group && e.resource === resource && e.namespace === ns;
    if (type === "DELETED") {
      this.#entries = this.#entries.filter((e) => !(same(e) && e.name === name));
      return;
    }
    if (type === "MODIFIED") {
      const rv = revisionOf(object);
      this.#entries = this.#entries.filter(
        (e) => !(same(e) && e.name === name && e.replacing !== undefined && e.replacing !== rv),
      );
      return;
    }
    if (!isNew) return;
    let i = this.#entries.findIndex((e) => same(e) && e.replacing === undefined && e.name === name);
    // A generated name is unknown at admission: the oldest nameless create takes the new object.
    if (i < 0)
      i = this.#entries.findIndex((e) => same(e) && e.replacing === undefined && e.name === undefined);
    if (i >= 0) this.#entries.splice(i, 1);
  }

  /** The namespace's objects as the informer lists them, with pending creates and updates applied. */
  overlay(group: string, resource: string, namespace: string, listed: readonly JsonObject[], now: number) {
    const byName = new Map<string, JsonObject>();
    const extra: JsonObject[] = [];
    for (const o of listed) {
      const n = nameOf(o);
      if (n === undefined) extra.push(o);
      else byName.set(n, o);
    }
    for (const e of this.#entries) {
      if (e.group !== group || e.resource !== resource || e.namespace !== namespace || e.expires <= now)
        continue;
      if (e.replacing !== undefined) {
        const current = e.name === undefined ? undefined : byName.get(e.name);
        if (current && revisionOf(current) === e.replacing && e.name !== undefined)
          byName.set(e.name, e.object);
      } else if (e.name === undefined) {
        extra.push(e.object);
      } else if (!byName.has(e.name)) {
        byName.set(e.name, e.object);
      }
    }
    return [...byName.values(), ...extra];
  }

  get size(): number {
    return this.#entries.length;
  }
}
