import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { naming } from "../../../backends/naming/index.ts";
import type { UserInfo } from "../../../gateway/pipeline/index.ts";
import { ClusterRoleAggregationController } from "../../controllers/clusterrole-aggregation/clusterrole-aggregation-controller.ts";
import type { ControllerClient } from "../../controllers/index.ts";
import type { Attributes } from "../authorizer.ts";
import { bootstrapPolicy, signerNames } from "./bootstrap-policy.ts";
import type { RbacAuthorizer } from "./rbac-authorizer.ts";
import { reconcileBootstrapPolicy } from "./reconcile.ts";
import { startTestGateway, type TestGateway } from "./test-gateway.ts";

type Json = Record<string, unknown>;

describe("bootstrap policy data", () => {
  it("spells everything with the preset", () => {
    const text = JSON.stringify(bootstrapPolicy(naming("cluster")));
    for (const upstream of ["k8s.io", "kubernetes.io", "kube-system", "kube-public"]) {
      assert.ok(!text.includes(upstream), `cluster preset mentions ${upstream}`);
    }
    const k = bootstrapPolicy(naming("kubernetes"));
    const names = k.clusterRoles.map((r) => (r.metadata as Json).name);
    for (const name of [
      "cluster-admin",
      "admin",
      "edit",
      "view",
      "system:aggregate-to-admin",
      "system:aggregate-to-edit",
      "system:aggregate-to-view",
      "system:discovery",
      "system:basic-user",
      "system:public-info-viewer",
      "system:node",
      "system:node-bootstrapper",
      "system:certificates.k8s.io:certificatesigningrequests:nodeclient",
      "system:certificates.k8s.io:certificatesigningrequests:selfnodeclient",
      "system:certificates.k8s.io:kube-apiserver-client-approver",
      "system:certificates.k8s.io:kube-apiserver-client-kubelet-approver",
      "system:certificates.k8s.io:kubelet-serving-approver",
      "system:certificates.k8s.io:legacy-unknown-approver",
      "system:controller:clusterrole-aggregation-controller",
    ]) {
      assert.ok(names.includes(name), `missing ${name}`);
    }
    assert.equal(new Set(names).size, names.length, "no duplicate names");
    assert.deepEqual(
      signerNames(naming("kubernetes")).apiserverClient,
      "kubernetes.io/kube-apiserver-client",
    );
    assert.deepEqual(
      signerNames(naming("cluster")).apiserverClientKubelet,
      "cluster.io/cluster-apiserver-client-nodeagent",
    );
    const view = k.clusterRoles.find((r) => (r.metadata as Json).name === "view")!;
    assert.deepEqual(view.aggregationRule, {
      clusterRoleSelectors: [{ matchLabels: { "rbac.authorization.k8s.io/aggregate-to-view": "true" } }],
    });
    assert.deepEqual((view.metadata as Json).labels, {
      "rbac.authorization.k8s.io/aggregate-to-edit": "true",
      "kubernetes.io/bootstrapping": "rbac-defaults",
    });
    assert.deepEqual((view.metadata as Json).annotations, {
      "rbac.authorization.kubernetes.io/autoupdate": "true",
    });
  });
});

describe("bootstrap policy in a running gateway", () => {
  let gw: TestGateway;
  let admin: ControllerClient;
  let rbac: RbacAuthorizer;
  const stopController = new AbortController();
  let controllerRun: Promise<void>;
  const errors: string[] = [];
  let group: string;
  const autoupdate = naming("cluster").label("autoupdate", "rbac.authorization");

  const user = (username: string, groups: string[] = ["system:authenticated"]): UserInfo => ({
    username,
    uid: "",
    groups,
    extra: {},
  });
  const can = (u: UserInfo, verb: string, resource: string, options: Partial<Attributes> = {}) =>
    rbac.authorize({
      user: u,
      verb,
      isResourceRequest: true,
      path: "",
      namespace: "ns",
      apiGroup: "",
      apiVersion: "v1",
      resource,
      subresource: "",
      name: "",
      ...options,
    }).decision === "allow";
  const canGet = (u: UserInfo, path: string) =>
    rbac.authorize({
      user: u,
      verb: "get",
      isResourceRequest: false,
      path,
      namespace: "",
      apiGroup: "",
      apiVersion: "",
      resource: "",
      subresource: "",
      name: "",
    }).decision === "allow";

  const until = async (what: string, check: () => boolean | Promise<boolean>) => {
    for (let i = 0; i < 1000; i++) {
      if (await check()) return;
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.fail(`timed out waiting for ${what}`);
  };

  before(async () => {
    gw = await startTestGateway("cluster");
    group = gw.naming.group("rbac.authorization");
    admin = await gw.client("admin", ["system:masters"]);
    const report = await reconcileBootstrapPolicy(admin, gw.naming);
    assert.ok(report.created.length > 40);
    assert.deepEqual([report.updated, report.recreated, report.protected], [[], [], []]);
    rbac = gw.rbac;
    await until("the controller's permissions", () =>
      can(user("system:controller:clusterrole-aggregation-controller"), "watch", "clusterroles", {
        apiGroup: group,
        namespace: "",
      }),
    );
    const controller = new ClusterRoleAggregationController(
      await gw.client("system:controller:clusterrole-aggregation-controller"),
      gw.naming,
      (err, context) => errors.push(`${context}: ${String(err)}`),
    );
    controllerRun = controller.run(stopController.signal);
  });
  after(async () => {
    stopController.abort();
    await controllerRun;
    await gw?.stop();
    assert.deepEqual(errors, []);
  });

  it("aggregates admin, edit and view from the aggregate-to roles", async () => {
    await until("admin filled", async () => {
      const reply = await admin.call("GET", `/apis/${group}/v1/clusterroles/admin`);
      const rules = reply.body.rules as Json[] | null;
      const has = (resource: string) =>
        Array.isArray(rules) &&
        rules.some((r) => ((r.resources as string[] | undefined) ?? []).includes(resource));
      // rolebindings come from system:aggregate-to-admin, secrets from -edit, pods/log from -view via edit.
      return has("rolebindings") && has("secrets") && has("pods/log");
    });
    // Bind the user-facing roles in a namespace.
    await admin.must("POST", "/api/v1/namespaces", { metadata: { name: "ns" } });
    for (const [role, who] of [
      ["view", "viola"],
      ["edit", "eddie"],
      ["admin", "ada"],
    ]) {
      const created = await admin.call("POST", `/apis/${group}/v1/namespaces/ns/rolebindings`, {
        metadata: { name: `${who}-${role}` },
        roleRef: { apiGroup: group, kind: "ClusterRole", name: role },
        subjects: [{ kind: "User", name: who, apiGroup: group }],
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
    }
    await until("bindings", () => can(user("ada"), "create", "rolebindings", { apiGroup: group }));
    await until("view filled", () => can(user("viola"), "get", "pods"));
  });

  it("view reads but cannot read secrets or roles, nor write", () => {
    const viola = user("viola");
    assert.ok(can(viola, "list", "configmaps"));
    assert.ok(can(viola, "watch", "deployments", { apiGroup: "apps" }));
    assert.ok(can(viola, "get", "pods", { subresource: "log" }));
    assert.ok(!can(viola, "get", "secrets"));
    assert.ok(!can(viola, "list", "roles", { apiGroup: group }));
    assert.ok(!can(viola, "create", "configmaps"));
    assert.ok(!can(viola, "get", "pods", { namespace: "elsewhere" }));
  });

  it("edit writes workloads and secrets but not roles; admin also manages roles and bindings", () => {
    const eddie = user("eddie");
    assert.ok(can(eddie, "get", "secrets"));
    assert.ok(can(eddie, "create", "deployments", { apiGroup: "apps" }));
    assert.ok(can(eddie, "create", "serviceaccounts", { subresource: "token", name: "default" }));
    assert.ok(!can(eddie, "create", "roles", { apiGroup: group }));
    assert.ok(!can(eddie, "update", "endpoints"));
    const ada = user("ada");
    assert.ok(can(ada, "create", "rolebindings", { apiGroup: group }));
    assert.ok(can(ada, "delete", "secrets"));
    assert.ok(!can(ada, "create", "clusterroles", { apiGroup: group, namespace: "" }));
  });

  it("lets anyone read health and version, and authenticated users discover and review themselves", () => {
    const anonymous = user("system:anonymous", ["system:unauthenticated"]);
    for (const path of ["/healthz", "/livez", "/readyz", "/version", "/version/"])
      assert.ok(canGet(anonymous, path), path);
    assert.ok(!canGet(anonymous, "/api"));
    assert.ok(!canGet(anonymous, "/metrics"));
    const someone = user("someone");
    assert.ok(canGet(someone, "/apis/apps/v1"));
    assert.ok(canGet(someone, "/openapi/v3"));
    assert.ok(!canGet(someone, "/metrics"));
    const authorization = gw.naming.group("authorization");
    assert.ok(can(someone, "create", "selfsubjectaccessreviews", { apiGroup: authorization, namespace: "" }));
    assert.ok(can(someone, "create", "selfsubjectrulesreviews", { apiGroup: authorization, namespace: "" }));
    assert.ok(
      can(someone, "create", "selfsubjectreviews", {
        apiGroup: gw.naming.group("authentication"),
        namespace: "",
      }),
    );
    assert.ok(!can(someone, "create", "subjectaccessreviews", { apiGroup: authorization, namespace: "" }));
    assert.ok(!can(someone, "list", "pods"));
  });

  it("gives system:masters everything and the controllers what they need", () => {
    const master = user("root", ["system:masters", "system:authenticated"]);
    assert.ok(can(master, "deletecollection", "anything", { apiGroup: "example.com" }));
    assert.ok(canGet(master, "/metrics"));
    const ns = user("system:controller:namespace-controller");
    assert.ok(can(ns, "deletecollection", "configmaps"));
    assert.ok(can(ns, "update", "namespaces", { subresource: "finalize", namespace: "", name: "x" }));
    assert.ok(!can(ns, "create", "configmaps"));
    const agg = user("system:controller:clusterrole-aggregation-controller");
    assert.ok(can(agg, "escalate", "clusterroles", { apiGroup: group, namespace: "", name: "admin" }));
    const cleaner = user("system:controller:token-cleaner");
    assert.ok(
      can(cleaner, "delete", "secrets", {
        namespace: gw.naming.systemNamespace,
        name: "bootstrap-token-abcdef",
      }),
    );
    assert.ok(!can(cleaner, "delete", "secrets", { namespace: "default", name: "x" }));
    const signer = user("system:controller:bootstrap-signer");
    assert.ok(
      can(signer, "update", "configmaps", { namespace: gw.naming.publicNamespace, name: "cluster-info" }),
    );
    assert.ok(!can(signer, "update", "configmaps", { namespace: gw.naming.publicNamespace, name: "other" }));
    const anonymous = user("system:anonymous", ["system:unauthenticated"]);
    assert.ok(
      can(anonymous, "get", "configmaps", { namespace: gw.naming.publicNamespace, name: "cluster-info" }),
    );
  });

  it("reconciles again without changes, restores removed rules and subjects, and respects autoupdate=false", async () => {
    const again = await reconcileBootstrapPolicy(admin, gw.naming);
    assert.deepEqual(again, { created: [], updated: [], recreated: [], protected: [] });

    const path = (resource: string, name: string) =>
      `/apis/${group}/v1/${resource}/${encodeURIComponent(name)}`;
    const basic = (await admin.must("GET", path("clusterroles", "system:basic-user"))).body;
    await admin.must("PUT", path("clusterroles", "system:basic-user"), {
      ...basic,
      rules: [
        {
          verbs: ["create"],
          apiGroups: [gw.naming.group("authorization")],
          resources: ["selfsubjectaccessreviews"],
        },
      ],
    });
    const viewer = (await admin.must("GET", path("clusterrolebindings", "system:public-info-viewer"))).body;
    await admin.must("PUT", path("clusterrolebindings", "system:public-info-viewer"), {
      ...viewer,
      subjects: [{ kind: "User", name: "extra-user", apiGroup: group }],
    });
    const discovery = (await admin.must("GET", path("clusterroles", "system:discovery"))).body;
    await admin.must("PUT", path("clusterroles", "system:discovery"), {
      ...discovery,
      metadata: { ...discovery.metadata, annotations: { [autoupdate]: "false" } },
      rules: [{ verbs: ["get"], nonResourceURLs: ["/version"] }],
    });
    // A binding whose roleRef is not the expected one is replaced, keeping its subjects.
    await admin.must("DELETE", path("clusterrolebindings", "system:monitoring"));
    await admin.must("POST", `/apis/${group}/v1/clusterrolebindings`, {
      metadata: { name: "system:monitoring" },
      roleRef: { apiGroup: group, kind: "ClusterRole", name: "view" },
      subjects: [{ kind: "Group", name: "watchers", apiGroup: group }],
    });

    const report = await reconcileBootstrapPolicy(admin, gw.naming);
    assert.deepEqual(report, {
      created: [],
      updated: ["clusterroles/system:basic-user", "clusterrolebindings/system:public-info-viewer"],
      recreated: ["clusterrolebindings/system:monitoring"],
      protected: ["clusterroles/system:discovery"],
    });
    const restored = (await admin.must("GET", path("clusterroles", "system:basic-user"))).body;
    assert.deepEqual(
      restored.rules.map((r: Json) => r.resources),
      [["selfsubjectaccessreviews"], ["selfsubjectrulesreviews"], ["selfsubjectreviews"]],
      "the missing rules are added back, one resource each",
    );
    const subjects = (await admin.must("GET", path("clusterrolebindings", "system:public-info-viewer"))).body
      .subjects;
    assert.deepEqual(
      subjects.map((s: Json) => s.name),
      ["extra-user", "system:authenticated", "system:unauthenticated"],
    );
    const monitoring = (await admin.must("GET", path("clusterrolebindings", "system:monitoring"))).body;
    assert.equal(monitoring.roleRef.name, "system:monitoring");
    assert.deepEqual(
      monitoring.subjects.map((s: Json) => s.name),
      ["watchers", "system:monitoring"],
    );
    const kept = (await admin.must("GET", path("clusterroles", "system:discovery"))).body;
    assert.equal(kept.rules.length, 1);
  });
});
