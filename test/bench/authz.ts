// RBAC authorizer microbenchmark: `node test/bench/authz.ts [--quick]`.
//
// Builds the RBAC authorizer the gateway uses (real registries over MemoryStorage, informers from
// the watch caches) with 1,000 bindings: 300 ClusterRoleBindings and 700 RoleBindings over 100
// namespaces, whose subjects mix users, groups and service accounts, over 60 ClusterRoles and 300
// Roles of 8 rules each. Then times single authorize() calls that are allowed (hits) and that
// find nothing (misses), and prints p50 and p99 per kind of request. Not a test: no assertion on
// times; the target is a p50 of at most 30 µs for a decision.

import { builtinKinds } from "../../backends/builtin/index.ts";
import { rbacKinds } from "../../backends/builtin/rbac.ts";
import { MemoryStorage } from "../../backends/memory/index.ts";
import { naming } from "../../backends/naming/index.ts";
import { startControlPlane } from "../../gateway/control-plane.ts";
import { objectAccess } from "../../gateway/object-access.ts";
import type { UserInfo } from "../../gateway/pipeline/index.ts";
import type { Attributes } from "../../plugins/authorization/index.ts";
import { RbacAuthorizer } from "../../plugins/authorization/rbac/index.ts";

const quick = process.argv.includes("--quick");
const ROUNDS = quick ? 20_000 : 200_000;
const NAMESPACES = 100;
const CLUSTER_ROLES = 60;
const ROLES_PER_NAMESPACE = 3;
const CLUSTER_BINDINGS = 300;
const ROLE_BINDINGS = 700;
const USERS = 400;
const GROUPS = 50;

const n = naming("cluster");
const RBAC = n.group("rbac.authorization");
const RESOURCES = ["pods", "configmaps", "secrets", "services", "deployments", "jobs", "leases", "events"];
const GROUPS_OF = ["", "", "", "", "apps", "batch", "coordination.example", "events.example"];

function rules(seed: number) {
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

interface BenchSubject {
  readonly kind: string;
  readonly apiGroup?: string;
  readonly name: string;
  readonly namespace?: string;
}

function subjectsFor(i: number): BenchSubject[] {
  const kind = i % 3;
  if (kind === 0) return [{ kind: "User", apiGroup: RBAC, name: `user-${i % USERS}` }];
  if (kind === 1) return [{ kind: "Group", apiGroup: RBAC, name: `group-${i % GROUPS}` }];
  return [{ kind: "ServiceAccount", name: `sa-${i % 20}`, namespace: `ns-${i % NAMESPACES}` }];
}

function user(name: string, groups: string[] = []): UserInfo {
  return { username: name, uid: "", groups: [...groups, "system:authenticated"], extra: {} };
}

function attributes(
  u: UserInfo,
  verb: string,
  group: string,
  resource: string,
  namespace: string,
  name = "",
): Attributes {
  return {
    user: u,
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

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

function measure(rbac: RbacAuthorizer, requests: readonly Attributes[], expect: "allow" | "noOpinion") {
  for (const r of requests) {
    if (rbac.authorize(r).decision !== expect)
      throw new Error(`unexpected decision for ${JSON.stringify(r)}`);
  }
  for (let i = 0; i < ROUNDS / 4; i++) rbac.authorize(requests[i % requests.length]!);
  const times = new Float64Array(ROUNDS);
  for (let i = 0; i < ROUNDS; i++) {
    const r = requests[i % requests.length]!;
    const start = process.hrtime.bigint();
    rbac.authorize(r);
    times[i] = Number(process.hrtime.bigint() - start) / 1000;
  }
  times.sort();
  return { p50: percentile(times, 0.5), p99: percentile(times, 0.99) };
}

async function main(): Promise<void> {
  const storage = new MemoryStorage();
  const plane = await startControlPlane({
    storage,
    naming: n,
    kinds: [...builtinKinds(n), ...rbacKinds(n)],
    historyWindowMs: 60_000,
    maxHistory: 10_000,
    watchListEnabled: false,
    onError: (err) => {
      throw err;
    },
  });
  const stop = new AbortController();
  const registry = (resource: string) => plane.resources.byResource(RBAC, resource)!.registry;
  const started = performance.now();
  for (let i = 0; i < CLUSTER_ROLES; i++) {
    await registry("clusterroles").create(undefined, { metadata: { name: `cr-${i}` }, rules: rules(i) });
  }
  for (let ns = 0; ns < NAMESPACES; ns++) {
    for (let r = 0; r < ROLES_PER_NAMESPACE; r++) {
      await registry("roles").create(`ns-${ns}`, { metadata: { name: `role-${r}` }, rules: rules(ns + r) });
    }
  }
  for (let i = 0; i < CLUSTER_BINDINGS; i++) {
    await registry("clusterrolebindings").create(undefined, {
      metadata: { name: `crb-${i}` },
      roleRef: { apiGroup: RBAC, kind: "ClusterRole", name: `cr-${i % CLUSTER_ROLES}` },
      subjects: subjectsFor(i),
    });
  }
  for (let i = 0; i < ROLE_BINDINGS; i++) {
    const ns = i % NAMESPACES;
    const toClusterRole = i % 4 === 0;
    await registry("rolebindings").create(`ns-${ns}`, {
      metadata: { name: `rb-${i}` },
      roleRef: toClusterRole
        ? { apiGroup: RBAC, kind: "ClusterRole", name: `cr-${i % CLUSTER_ROLES}` }
        : { apiGroup: RBAC, kind: "Role", name: `role-${i % ROLES_PER_NAMESPACE}` },
      subjects: subjectsFor(i + 1),
    });
  }
  const rbac = new RbacAuthorizer(
    objectAccess(plane.resources, stop.signal, (err) => console.error(err)),
    n,
  );
  await rbac.synced;
  while (rbac.bindingCount < CLUSTER_BINDINGS + ROLE_BINDINGS) await new Promise((r) => setTimeout(r, 10));
  const built = performance.now() - started;

  // Hits: each subject's first rule of its bound role (users, groups, service accounts).
  const hits: Attributes[] = [];
  const misses: Attributes[] = [];
  for (let i = 0; i < CLUSTER_BINDINGS; i++) {
    const rule = rules(i % CLUSTER_ROLES)[0]!;
    const s = subjectsFor(i)[0]!;
    const u =
      s.kind === "User"
        ? user(s.name)
        : s.kind === "Group"
          ? user(`member-${i}`, [s.name])
          : user(`system:serviceaccount:${s.namespace}:${s.name}`, ["system:serviceaccounts"]);
    hits.push(attributes(u, "get", rule.apiGroups[0]!, rule.resources[0]!, `ns-${i % NAMESPACES}`, "x"));
    // The same subject asking for something no rule grants: every binding of it is looked at.
    misses.push(attributes(u, "delete", "example.com", "widgets", `ns-${i % NAMESPACES}`, "x"));
  }
  const strangers = Array.from({ length: 100 }, (_, i) =>
    attributes(user(`stranger-${i}`, ["outsiders"]), "get", "", "pods", `ns-${i % NAMESPACES}`, "x"),
  );

  const results = [
    ["hit (user, group or service account)", measure(rbac, hits, "allow")],
    ["miss (bound subject, nothing matches)", measure(rbac, misses, "noOpinion")],
    ["miss (unbound user)", measure(rbac, strangers, "noOpinion")],
  ] as const;
  console.log(
    `RBAC authorizer over ${rbac.bindingCount} bindings (${CLUSTER_BINDINGS} cluster-wide, ${ROLE_BINDINGS} in ${NAMESPACES} namespaces), ${CLUSTER_ROLES} ClusterRoles, ${NAMESPACES * ROLES_PER_NAMESPACE} Roles; built and synced in ${built.toFixed(0)} ms`,
  );
  console.log(`${ROUNDS} timed authorize() calls per row; target p50 <= 30 µs`);
  console.log(`${"request".padEnd(42)}${"p50 µs".padStart(10)}${"p99 µs".padStart(10)}`);
  for (const [name, r] of results) {
    console.log(`${name.padEnd(42)}${r.p50.toFixed(2).padStart(10)}${r.p99.toFixed(2).padStart(10)}`);
  }
  rbac.close();
  stop.abort();
  await plane.stop();
  await storage.close();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
