// Keeps the bootstrap policy in place through the API, as upstream's reconciliation does at start:
// missing objects are created; existing ones get missing rules, aggregation selectors, subjects,
// labels and annotations added (nothing is removed) unless they carry the autoupdate annotation
// set to "false"; a binding whose roleRef differs is deleted and created again.
import type { Naming } from "../../../backends/naming/index.ts";
import type { ControllerClient } from "../../controllers/index.ts";
import { type BootstrapPolicy, bootstrapPolicy } from "./bootstrap-policy.ts";
import { covers, rulesOf, ruleToJson } from "./policy-rule.ts";

type Json = Record<string, unknown>;

export interface ReconcileReport {
  readonly created: string[];
  readonly updated: string[];
  readonly recreated: string[];
  /** Objects left alone because of `autoupdate: "false"`. */
  readonly protected: string[];
}

const MAX_ATTEMPTS = 5;

function record(value: unknown): Json {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : {};
}

function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (typeof v === "object" && v !== null) {
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, canonical((v as Json)[k])]),
    );
  }
  return v;
}

/** Labels or annotations with the expected entries added; existing values win. */
function mergeMap(expected: unknown, existing: unknown): { value: Record<string, string>; changed: boolean } {
  const value = { ...(record(existing) as Record<string, string>) };
  let changed = false;
  for (const [k, v] of Object.entries(record(expected))) {
    if (!(k in value)) {
      value[k] = String(v);
      changed = true;
    }
  }
  return { value, changed };
}

function mergeMetadata(expected: Json, existing: Json): boolean {
  const meta = record(existing.metadata);
  const want = record(expected.metadata);
  const labels = mergeMap(want.labels, meta.labels);
  const annotations = mergeMap(want.annotations, meta.annotations);
  meta.labels = labels.value;
  meta.annotations = annotations.value;
  existing.metadata = meta;
  return labels.changed || annotations.changed;
}

/** Adds to `existing` what `expected` grants and it lacks; true when something changed. */
function reconcileRole(expected: Json, existing: Json): boolean {
  let changed = mergeMetadata(expected, existing);
  const { missing } = covers(rulesOf(existing), rulesOf(expected));
  if (missing.length > 0) {
    existing.rules = [...(Array.isArray(existing.rules) ? existing.rules : []), ...missing.map(ruleToJson)];
    changed = true;
  }
  const wantSelectors = record(expected.aggregationRule).clusterRoleSelectors;
  if (Array.isArray(wantSelectors)) {
    const rule = record(existing.aggregationRule);
    const have = Array.isArray(rule.clusterRoleSelectors) ? [...rule.clusterRoleSelectors] : [];
    const add = wantSelectors.filter((s) => !have.some((h) => deepEqual(h, s)));
    if (add.length > 0) {
      existing.aggregationRule = { ...rule, clusterRoleSelectors: [...have, ...add] };
      changed = true;
    }
  }
  return changed;
}

function sameSubject(a: unknown, b: unknown): boolean {
  const x = record(a);
  const y = record(b);
  return (
    x.kind === y.kind &&
    x.name === y.name &&
    (x.namespace ?? "") === (y.namespace ?? "") &&
    (x.apiGroup ?? "") === (y.apiGroup ?? "")
  );
}

function reconcileBinding(expected: Json, existing: Json): boolean {
  let changed = mergeMetadata(expected, existing);
  const have = Array.isArray(existing.subjects) ? [...existing.subjects] : [];
  const add = (Array.isArray(expected.subjects) ? expected.subjects : []).filter(
    (s) => !have.some((h) => sameSubject(h, s)),
  );
  if (add.length > 0) {
    existing.subjects = [...have, ...add];
    changed = true;
  }
  return changed;
}

export async function reconcileBootstrapPolicy(
  client: ControllerClient,
  naming: Naming,
  policy: BootstrapPolicy = bootstrapPolicy(naming),
): Promise<ReconcileReport> {
  const group = naming.group("rbac.authorization");
  const autoupdate = naming.label("autoupdate", "rbac.authorization");
  const report: ReconcileReport = { created: [], updated: [], recreated: [], protected: [] };
  const failures: string[] = [];

  const collectionPath = (resource: string, namespace: string | undefined) =>
    `/apis/${group}/v1/${namespace ? `namespaces/${encodeURIComponent(namespace)}/` : ""}${resource}`;

  const one = async (resource: string, expected: Json, isBinding: boolean) => {
    const meta = record(expected.metadata);
    const name = String(meta.name);
    const namespace = typeof meta.namespace === "string" ? meta.namespace : undefined;
    const label = `${resource}/${namespace ? `${namespace}/` : ""}${name}`;
    const collection = collectionPath(resource, namespace);
    const path = `${collection}/${encodeURIComponent(name)}`;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const current = await client.call("GET", path);
      if (current.status === 404) {
        const created = await client.call("POST", collection, expected);
        if (created.status === 409) continue;
        if (created.status >= 300)
          throw new Error(`creating ${label}: ${created.status} ${messageOf(created.body)}`);
        report.created.push(label);
        return;
      }
      if (current.status !== 200)
        throw new Error(`reading ${label}: ${current.status} ${messageOf(current.body)}`);
      const existing = record(current.body);
      if (record(record(existing.metadata).annotations)[autoupdate] === "false") {
        report.protected.push(label);
        return;
      }
      if (isBinding && !deepEqual(existing.roleRef, expected.roleRef)) {
        // roleRef never changes in place: replace the binding, keeping its subjects.
        reconcileBinding(expected, existing);
        const rv = String(record(existing.metadata).resourceVersion ?? "");
        const deleted = await client.call("DELETE", path, {
          apiVersion: "v1",
          kind: "DeleteOptions",
          preconditions: { resourceVersion: rv },
        });
        if (deleted.status === 409 || deleted.status === 404) continue;
        if (deleted.status >= 300)
          throw new Error(`deleting ${label}: ${deleted.status} ${messageOf(deleted.body)}`);
        const meta = record(existing.metadata);
        const recreated = await client.call("POST", collection, {
          ...existing,
          roleRef: expected.roleRef,
          metadata: {
            name: meta.name,
            ...(meta.namespace ? { namespace: meta.namespace } : {}),
            labels: meta.labels,
            annotations: meta.annotations,
          },
        });
        if (recreated.status === 409) continue;
        if (recreated.status >= 300)
          throw new Error(`recreating ${label}: ${recreated.status} ${messageOf(recreated.body)}`);
        report.recreated.push(label);
        return;
      }
      const changed = isBinding ? reconcileBinding(expected, existing) : reconcileRole(expected, existing);
      if (!changed) return;
      const updated = await client.call("PUT", path, existing);
      if (updated.status === 409) continue;
      if (updated.status >= 300)
        throw new Error(`updating ${label}: ${updated.status} ${messageOf(updated.body)}`);
      report.updated.push(label);
      return;
    }
    throw new Error(`${label}: still conflicting after ${MAX_ATTEMPTS} attempts`);
  };

  const all: [string, readonly Json[], boolean][] = [
    ["clusterroles", policy.clusterRoles, false],
    ["clusterrolebindings", policy.clusterRoleBindings, true],
    ["roles", policy.roles, false],
    ["rolebindings", policy.roleBindings, true],
  ];
  for (const [resource, objects, isBinding] of all) {
    for (const object of objects) {
      try {
        await one(resource, object, isBinding);
      } catch (err) {
        failures.push(err instanceof Error ? err.message : String(err));
      }
    }
  }
  if (failures.length > 0) throw new Error(`bootstrap policy not fully reconciled: ${failures.join("; ")}`);
  return report;
}

function messageOf(body: unknown): string {
  const message = record(body).message;
  return typeof message === "string" ? message : JSON.stringify(body);
}
