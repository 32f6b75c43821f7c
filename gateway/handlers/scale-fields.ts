// Field ownership across the scale subresource, as upstream's scale handler keeps it: the Scale
// shows as owned by whoever owns the parent's replicas field, and what an apply to the Scale
// decides about its replicas goes back to the parent's managedFields under the same managers.
// Only `spec.replicas` crosses over; every other field of the parent keeps its owners.
import { FieldSet, type Path } from "../fieldmanager/field-set.ts";
import {
  decodeManagedFields,
  encodeManagedFields,
  identity,
  type ManagerEntry,
  type Managers,
} from "../fieldmanager/managed-fields.ts";

export const SCALE_API_VERSION = "autoscaling/v1";
const SCALE_REPLICAS: Path = [{ field: "spec" }, { field: "replicas" }];

/** `.spec.replicas` (a scale spec's dotted path) as a field path. */
export function replicasPath(dotted: string): Path {
  return (dotted.startsWith(".") ? dotted.slice(1) : dotted).split(".").map((field) => ({ field }));
}

function decoded(list: unknown): Managers {
  try {
    return decodeManagedFields(list);
  } catch {
    // Stored entries that do not decode own nothing here, as the field manager treats them.
    return new Map();
  }
}

/** Entries of the Scale and of its parent that stand for the same writer. */
function writerKey(e: ManagerEntry): string {
  return JSON.stringify([e.manager, e.operation, e.subresource]);
}

/**
 * The Scale's managedFields for a parent's: each entry (at a version still served) that owns the
 * replicas field owns the Scale's `spec.replicas`.
 */
export function scaleManagedFields(
  parent: unknown,
  replicas: Path,
  served: (apiVersion: string) => boolean,
): Record<string, unknown>[] | undefined {
  const out: Managers = new Map();
  for (const e of decoded(parent).values()) {
    if (!served(e.apiVersion) || !e.set.has(replicas)) continue;
    const entry: ManagerEntry = { ...e, apiVersion: SCALE_API_VERSION, set: FieldSet.of(SCALE_REPLICAS) };
    out.set(identity(entry), entry);
  }
  return encodeManagedFields(out);
}

/**
 * The parent's managedFields after a write of its Scale: a parent entry whose writer no longer
 * appears among the Scale's loses the replicas field, and a Scale writer that owns the replicas
 * and has no parent entry yet gets one at `apiVersion` (the parent's version of the request).
 */
export function parentManagedFields(
  parent: unknown,
  scale: unknown,
  replicas: Path,
  apiVersion: string,
  served: (apiVersion: string) => boolean,
): Record<string, unknown>[] | undefined {
  const pending = new Map<string, ManagerEntry>();
  for (const e of decoded(scale).values()) pending.set(writerKey(e), e);
  const out: Managers = new Map();
  for (const [id, e] of decoded(parent)) {
    if (!served(e.apiVersion)) continue;
    if (!e.set.has(replicas)) {
      out.set(id, e);
      continue;
    }
    const key = writerKey(e);
    if (pending.has(key)) {
      out.set(id, e);
      pending.delete(key);
      continue;
    }
    const rest = e.set.difference(FieldSet.of(replicas));
    if (!rest.isEmpty()) out.set(id, { ...e, set: rest });
  }
  for (const e of pending.values()) {
    if (!e.set.has(SCALE_REPLICAS)) continue;
    const entry: ManagerEntry = { ...e, apiVersion, set: FieldSet.of(replicas) };
    const id = identity(entry);
    const there = out.get(id);
    out.set(id, there ? { ...entry, set: there.set.union(entry.set) } : entry);
  }
  return encodeManagedFields(out);
}
