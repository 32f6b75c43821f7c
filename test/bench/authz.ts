// RBAC authorizer microbenchmark: `node test/bench/authz.ts [--quick]`.
//
// Builds the RBAC authorizer the gateway uses (real registries over MemoryStorage, informers from
// the watch caches) over the 1,000 bindings of rbac-fixtures.ts. Then times single authorize()
// calls that are allowed (hits) and that find nothing (misses), and prints p50 and p99 per kind
// of request. Not a test: no assertion on times; the target is a p50 of at most 30 µs for a
// decision.

import type { Attributes } from "../../plugins/authorization/index.ts";
import { RbacAuthorizer } from "../../plugins/authorization/rbac/index.ts";
import {
  benchNaming,
  benchUser,
  bindingsIndexed,
  CLUSTER_BINDINGS,
  CLUSTER_ROLES,
  NAMESPACES,
  ROLE_BINDINGS,
  ROLES_PER_NAMESPACE,
  resourceAttributes,
  rules,
  startRbacFixture,
  subjectsFor,
} from "./rbac-fixtures.ts";

const quick = process.argv.includes("--quick");
const ROUNDS = quick ? 20_000 : 200_000;

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
  const started = performance.now();
  const fixture = await startRbacFixture();
  const rbac = new RbacAuthorizer(fixture.access, benchNaming);
  await rbac.synced;
  await bindingsIndexed(() => rbac.bindingCount);
  const built = performance.now() - started;

  // Hits: each subject's first rule of its bound role (users, groups, service accounts).
  const hits: Attributes[] = [];
  const misses: Attributes[] = [];
  for (let i = 0; i < CLUSTER_BINDINGS; i++) {
    const rule = rules(i % CLUSTER_ROLES)[0]!;
    const s = subjectsFor(i)[0]!;
    const u =
      s.kind === "User"
        ? benchUser(s.name)
        : s.kind === "Group"
          ? benchUser(`member-${i}`, [s.name])
          : benchUser(`system:serviceaccount:${s.namespace}:${s.name}`, ["system:serviceaccounts"]);
    hits.push(
      resourceAttributes(u, "get", rule.apiGroups[0]!, rule.resources[0]!, `ns-${i % NAMESPACES}`, "x"),
    );
    // The same subject asking for something no rule grants: every binding of it is looked at.
    misses.push(resourceAttributes(u, "delete", "example.com", "widgets", `ns-${i % NAMESPACES}`, "x"));
  }
  const strangers = Array.from({ length: 100 }, (_, i) =>
    resourceAttributes(
      benchUser(`stranger-${i}`, ["outsiders"]),
      "get",
      "",
      "pods",
      `ns-${i % NAMESPACES}`,
      "x",
    ),
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
  await fixture.stop();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
