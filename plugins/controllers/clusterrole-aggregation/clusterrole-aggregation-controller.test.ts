import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestGateway, type TestGateway } from "../../authorization/rbac/test-gateway.ts";
import type { ControllerClient } from "../client.ts";
import { ClusterRoleAggregationController } from "./clusterrole-aggregation-controller.ts";

type Json = Record<string, unknown>;

describe("ClusterRole aggregation controller", () => {
  let gw: TestGateway;
  let admin: ControllerClient;
  let base: string;
  const stop = new AbortController();
  let run: Promise<void>;
  const errors: string[] = [];

  const put = (name: string, body: Json) => admin.must("PUT", `${base}/${encodeURIComponent(name)}`, body);
  const rulesOf = async (name: string): Promise<unknown> =>
    (await admin.must("GET", `${base}/${encodeURIComponent(name)}`)).body.rules;
  const eventually = async (what: string, check: () => Promise<boolean>) => {
    for (let i = 0; i < 500; i++) {
      if (await check()) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.fail(`timed out waiting for ${what}`);
  };
  const rule = (resource: string, verbs = ["get"]) => ({ verbs, apiGroups: [""], resources: [resource] });
  const source = (name: string, labels: Record<string, string>, rules: Json[]) =>
    put(name, { metadata: { name, labels }, rules });

  before(async () => {
    gw = await startTestGateway("kubernetes");
    admin = await gw.client("admin", ["system:masters"]);
    base = `/apis/${gw.naming.group("rbac.authorization")}/v1/clusterroles`;
    const controller = new ClusterRoleAggregationController(
      await gw.client("aggregator", ["system:masters"]),
      gw.naming,
      (err, context) => errors.push(`${context}: ${String(err)}`),
    );
    run = controller.run(stop.signal);
    await eventually("sync", async () => controller.synced);
  });
  after(async () => {
    stop.abort();
    await run;
    await gw.stop();
  });

  it("sets an aggregated role's rules to the union of the matching roles, in name order, once each", async () => {
    await source("b-pods", { team: "a" }, [rule("pods"), rule("pods/log")]);
    await source("a-secrets", { team: "a", tier: "gold" }, [rule("secrets"), rule("pods")]);
    await source("c-other", { team: "b" }, [rule("nodes")]);
    await put("team-a", {
      metadata: { name: "team-a", labels: { team: "a" } },
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { team: "a" } }] },
      rules: [rule("ignored")],
    });
    await eventually("aggregation", async () => JSON.stringify(await rulesOf("team-a")).includes("pods/log"));
    assert.deepEqual(await rulesOf("team-a"), [rule("secrets"), rule("pods"), rule("pods/log")]);
  });

  it("follows changes, relabelling and deletion of the roles it aggregates", async () => {
    await source("a-secrets", { team: "a" }, [rule("secrets", ["get", "list"])]);
    await eventually("changed rules", async () => JSON.stringify(await rulesOf("team-a")).includes('"list"'));
    assert.deepEqual(await rulesOf("team-a"), [
      rule("secrets", ["get", "list"]),
      rule("pods"),
      rule("pods/log"),
    ]);
    await source("c-other", { team: "a" }, [rule("nodes")]);
    await eventually("a newly labelled role", async () =>
      JSON.stringify(await rulesOf("team-a")).includes("nodes"),
    );
    await source("b-pods", { team: "z" }, [rule("pods"), rule("pods/log")]);
    await eventually(
      "a relabelled role",
      async () => !JSON.stringify(await rulesOf("team-a")).includes("pods"),
    );
    await admin.must("DELETE", `${base}/a-secrets`);
    await eventually(
      "a deleted role",
      async () => !JSON.stringify(await rulesOf("team-a")).includes("secrets"),
    );
    assert.deepEqual(await rulesOf("team-a"), [rule("nodes")]);
  });

  it("unions several selectors, and empties a role nothing matches", async () => {
    await source("x1", { kind: "x" }, [rule("configmaps")]);
    await source("y1", { flavour: "y" }, [rule("events")]);
    await put("xy", {
      metadata: { name: "xy" },
      aggregationRule: {
        clusterRoleSelectors: [
          { matchLabels: { kind: "x" } },
          { matchExpressions: [{ key: "flavour", operator: "In", values: ["y"] }] },
        ],
      },
    });
    await eventually("two selectors", async () => JSON.stringify(await rulesOf("xy")).includes("events"));
    assert.deepEqual(await rulesOf("xy"), [rule("configmaps"), rule("events")]);
    await put("none", {
      metadata: { name: "none" },
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { nothing: "here" } }] },
      rules: [rule("stale")],
    });
    await eventually("emptied", async () => {
      const rules = await rulesOf("none");
      return rules === null || (Array.isArray(rules) && rules.length === 0);
    });
    assert.deepEqual(errors, []);
  });

  it("changes nothing without permission to write, and says why", async () => {
    const denied: string[] = [];
    const weak = new ClusterRoleAggregationController(await gw.client("nobody"), gw.naming, (err) =>
      denied.push(String(err)),
    );
    const weakStop = new AbortController();
    const weakRun = weak.run(weakStop.signal);
    await eventually("a refusal", async () => denied.length > 0);
    weakStop.abort();
    await weakRun;
    assert.match(denied[0]!, /403/);
    assert.equal(weak.synced, false);
  });
});
