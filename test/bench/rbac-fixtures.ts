// The RBAC fixture the authorization benchmarks share (authz.ts, auth.ts): a real control plane
// over MemoryStorage with the built-in and RBAC kinds, and 1,000 bindings in it: 300
// ClusterRoleBindings and 700 RoleBindings over 100 namespaces, whose subjects mix users, groups
// and service accounts, over 60 ClusterRoles and 300 Roles of 8 rules each. Deterministic, so
// a benchmark can work out which subject a binding grants what without asking the authorizer.

import { builtinKinds, builtinRbacKinds } from "../../backends/builtin/index.ts";
import { MemoryStorage } from "../../backends/memory/index.ts";
import { naming } from "../../backends/naming/index.ts";
import type { JsonObject, Registry } from "../../backends/registry/index.ts";
import { type ControlPlane, startControlPlane } from "../../gateway/control-plane.ts";
import { objectAccess } from "../../gateway/object-access.ts";
import type { UserInfo } from "../../gateway/pipeline/index.ts";
import type { Attributes } from "../../plugins/authorization/index.ts";
import type { ObjectAccess } from "../../plugins/objects/index.ts";

export const NAMESPACES = 100;
export const CLUSTER_ROLES = 60;
export const ROLES_PER_NAMESPACE = 3;
export const CLUSTER_BINDINGS = 300;
export const ROLE_BINDINGS = 700;
export const BINDINGS = CLUSTER_BINDINGS + ROLE_BINDINGS;
const USERS = 400;
const GROUPS = 50;
/** Service accounts named in bindings: sa-0 .. sa-19 (in various namespaces). */
const SERVICE_ACCOUNTS = 20;

export const benchNaming = naming("cluster");
export const RBAC_GROUP = benchNaming.group("rbac.authorization");
const RESOURCES = ["pods", "configmaps", "secrets", "services", "deployments", "jobs", "leases", "events"];
const GROUPS_OF = ["", "", "", "", "apps", "batch", "coordination.example", "events.example"];

export interface BenchRule {
  readonly verbs: string[];
  readonly apiGroups: string[];
  readonly resources: string[];
  readonly resourceNames?: string[];
}

/** The 8 rules of the role made from `seed` (ClusterRole cr-<seed>; Role role-<r> in ns-<n>: n + r). */
export function rules(seed: number): BenchRule[] {
  return Array.from({ length: 8 }, (_, i) => {
    const r = (seed + i) % RESOURCES.length;
    return {
      verbs: i % 3 === 0 ? ["get", "list", "watch"] : ["get"],
      apiGroups: [GROUPS_OF[r]!],
      resources: i % 4 === 0 ? [RESOURCES[r]!, `${RESOURCES[r]}/status`] : [RESOURCES[r]!],
      ...(i === 7 ? { resourceNames: [`name-${seed}`] } : {}),
    };
  });
}

export interface BenchSubject {
  readonly kind: string;
  readonly apiGroup?: string;
  readonly name: string;
  readonly namespace?: string;
}

/** ClusterRoleBinding crb-<i> has subjectsFor(i); RoleBinding rb-<i> has subjectsFor(i + 1). */
export function subjectsFor(i: number): BenchSubject[] {
  const kind = i % 3;
  if (kind === 0) return [{ kind: "User", apiGroup: RBAC_GROUP, name: `user-${i % USERS}` }];
  if (kind === 1) return [{ kind: "Group", apiGroup: RBAC_GROUP, name: `group-${i % GROUPS}` }];
  return [{ kind: "ServiceAccount", name: `sa-${i % SERVICE_ACCOUNTS}`, namespace: `ns-${i % NAMESPACES}` }];
}

/** A user as authentication leaves it (with system:authenticated). */
export function benchUser(name: string, groups: readonly string[] = []): UserInfo {
  return { username: name, uid: "", groups: [...groups, "system:authenticated"], extra: {} };
}

export function resourceAttributes(
  user: UserInfo,
  verb: string,
  group: string,
  resource: string,
  namespace: string,
  name = "",
): Attributes {
  return {
    user,
    verb,
    isResourceRequest: true,
    path: "",
    namespace,
    apiGroup: group,
    apiVersion: "v1",
    resource,
    subresource: "",
    name,
  };
}

/** The rules of RoleBinding rb-<i>'s role. */
function roleBindingRules(i: number): BenchRule[] {
  if (i % 4 === 0) return rules(i % CLUSTER_ROLES);
  return rules((i % NAMESPACES) + (i % ROLES_PER_NAMESPACE));
}

export interface Grant {
  readonly subject: BenchSubject;
  readonly namespace: string;
  /** The RoleBinding that grants it. */
  readonly binding: string;
}

/**
 * The first RoleBinding that grants a subject of `kind` `verb` on core `resource` (any name) in
 * its namespace: a request that RBAC allows through one of the 1,000 bindings.
 */
export function roleBindingGrant(kind: "User" | "ServiceAccount", verb: string, resource: string): Grant {
  for (let i = 0; i < ROLE_BINDINGS; i++) {
    const subject = subjectsFor(i + 1)[0]!;
    if (subject.kind !== kind) continue;
    const granted = roleBindingRules(i).some(
      (r) =>
        r.resourceNames === undefined &&
        r.verbs.includes(verb) &&
        r.apiGroups.includes("") &&
        r.resources.includes(resource),
    );
    if (granted) return { subject, namespace: `ns-${i % NAMESPACES}`, binding: `rb-${i}` };
  }
  throw new Error(`no RoleBinding grants a ${kind} ${verb} ${resource}`);
}

export interface RbacFixture {
  readonly plane: ControlPlane;
  /** The gateway's in-process object access over the plane's watch caches. */
  readonly access: ObjectAccess;
  registry(group: string, resource: string): Registry;
  create(
    group: string,
    resource: string,
    namespace: string | undefined,
    body: JsonObject,
  ): Promise<JsonObject>;
  /** How long creating the roles and bindings took, in ms. */
  readonly buildMs: number;
  stop(): Promise<void>;
}

/** Starts the control plane and creates the roles and the 1,000 bindings. */
export async function startRbacFixture(): Promise<RbacFixture> {
  const storage = new MemoryStorage();
  const failures: unknown[] = [];
  const plane = await startControlPlane({
    storage,
    naming: benchNaming,
    kinds: [...builtinKinds(benchNaming), ...builtinRbacKinds(benchNaming)],
    historyWindowMs: 60_000,
    maxHistory: 10_000,
    watchListEnabled: false,
    onError: (err) => failures.push(err),
  });
  const stop = new AbortController();
  const access = objectAccess(plane.resources, stop.signal, (err) => failures.push(err));
  const registry = (group: string, resource: string): Registry => {
    const served = plane.resources.byResource(group, resource);
    if (!served) throw new Error(`${group}/${resource} is not served`);
    return served.registry;
  };
  const create: RbacFixture["create"] = async (group, resource, namespace, body) =>
    (await registry(group, resource).create(namespace, body)).object as JsonObject;
  const rbac = (resource: string, namespace: string | undefined, body: JsonObject) =>
    create(RBAC_GROUP, resource, namespace, body);

  const started = performance.now();
  for (let i = 0; i < CLUSTER_ROLES; i++) {
    await rbac("clusterroles", undefined, { metadata: { name: `cr-${i}` }, rules: rules(i) });
  }
  for (let ns = 0; ns < NAMESPACES; ns++) {
    for (let r = 0; r < ROLES_PER_NAMESPACE; r++) {
      await rbac("roles", `ns-${ns}`, { metadata: { name: `role-${r}` }, rules: rules(ns + r) });
    }
  }
  for (let i = 0; i < CLUSTER_BINDINGS; i++) {
    await rbac("clusterrolebindings", undefined, {
      metadata: { name: `crb-${i}` },
      roleRef: { apiGroup: RBAC_GROUP, kind: "ClusterRole", name: `cr-${i % CLUSTER_ROLES}` },
      subjects: subjectsFor(i),
    });
  }
  for (let i = 0; i < ROLE_BINDINGS; i++) {
    const toClusterRole = i % 4 === 0;
    await rbac("rolebindings", `ns-${i % NAMESPACES}`, {
      metadata: { name: `rb-${i}` },
      roleRef: toClusterRole
        ? { apiGroup: RBAC_GROUP, kind: "ClusterRole", name: `cr-${i % CLUSTER_ROLES}` }
        : { apiGroup: RBAC_GROUP, kind: "Role", name: `role-${i % ROLES_PER_NAMESPACE}` },
      subjects: subjectsFor(i + 1),
    });
  }
  const buildMs = performance.now() - started;

  return {
    plane,
    access,
    registry,
    create,
    buildMs,
    async stop() {
      stop.abort();
      await plane.stop();
      await storage.close();
      if (failures.length > 0) throw new Error(`control plane errors: ${failures.map(String).join("; ")}`);
    },
  };
}

/** Waits until an authorizer's binding index holds all the fixture's bindings. */
export async function bindingsIndexed(count: () => number): Promise<void> {
  for (let i = 0; i < 3000 && count() < BINDINGS; i++) await new Promise((r) => setTimeout(r, 10));
  if (count() < BINDINGS) throw new Error(`only ${count()} of ${BINDINGS} bindings were indexed`);
}
