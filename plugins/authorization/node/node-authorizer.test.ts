import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { builtinKinds } from "../../../backends/builtin/index.ts";
import { MemoryStorage } from "../../../backends/memory/index.ts";
import { naming } from "../../../backends/naming/index.ts";
import type { Registry } from "../../../backends/registry/index.ts";
import { type ControlPlane, startControlPlane } from "../../../gateway/control-plane.ts";
import { objectAccess } from "../../../gateway/object-access.ts";
import type { UserInfo } from "../../../gateway/pipeline/index.ts";
import type { Attributes, AuthorizationResult } from "../authorizer.ts";
import { type NodeAuthorizer, nodeAuthorizer } from "./node-authorizer.ts";

const n = naming("cluster");

const node = (name: string): UserInfo => ({
  username: `system:node:${name}`,
  uid: "",
  groups: ["system:nodes", "system:authenticated"],
  extra: {},
});

function attrs(user: UserInfo, verb: string, resource: string, more: Partial<Attributes> = {}): Attributes {
  const [plural = "", subresource = ""] = resource.split("/");
  return {
    user,
    verb,
    isResourceRequest: true,
    path: "",
    namespace: "default",
    apiGroup: "",
    apiVersion: "v1",
    resource: plural,
    subresource,
    name: "",
    ...more,
  };
}

const NO_RELATIONSHIP = (name: string): AuthorizationResult => ({
  decision: "noOpinion",
  reason: `no relationship found between node '${name}' and this object`,
});
const ALLOW: AuthorizationResult = { decision: "allow", reason: "" };

/** Waits (boundedly) for the informers to deliver a change the decision depends on. */
async function eventually(check: () => AuthorizationResult, expected: AuthorizationResult): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (check().decision === expected.decision) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.deepEqual(check(), expected);
}

let storage: MemoryStorage;
let plane: ControlPlane;
let stop: AbortController;
let authz: NodeAuthorizer;
let pods: Registry;
let claims: Registry;

before(async () => {
  storage = new MemoryStorage();
  plane = await startControlPlane({
    storage,
    naming: n,
    kinds: builtinKinds(n),
    historyWindowMs: 60_000,
    maxHistory: 1000,
    watchListEnabled: false,
    onError: (err) => assert.fail(String(err)),
  });
  stop = new AbortController();
  const objects = objectAccess(plane.resources, stop.signal, (err) => assert.fail(String(err)));
  pods = plane.resources.byResource("", "pods")!.registry;
  claims = plane.resources.byResource("", "persistentvolumeclaims")!.registry;
  await pods.create("default", {
    metadata: { name: "web" },
    spec: {
      nodeName: "a",
      serviceAccountName: "web-sa",
      containers: [
        {
          name: "c",
          image: "busybox",
          env: [{ name: "MODE", valueFrom: { configMapKeyRef: { name: "settings", key: "mode" } } }],
          envFrom: [{ secretRef: { name: "env-secret" } }],
        },
      ],
      volumes: [
        { name: "creds", secret: { secretName: "db-creds" } },
        { name: "data", persistentVolumeClaim: { claimName: "data" } },
        { name: "p", projected: { sources: [{ configMap: { name: "projected-cm" } }] } },
      ],
      imagePullSecrets: [{ name: "registry-key" }],
    },
  });
  await claims.create("default", {
    metadata: { name: "data" },
    spec: { volumeName: "pv-1", accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
  });
  authz = nodeAuthorizer({
    naming: n,
    objects,
    staticRules: (a) => a.resource === "events" && a.verb === "create",
  });
  await authz.synced;
});

after(async () => {
  authz.stop();
  stop.abort();
  await plane.stop();
  await storage.close();
});

describe("Node authorizer", () => {
  it("lets a node read the secrets its pod mounts, and no other node", () => {
    const get = (who: string, name: string) => authz.authorize(attrs(node(who), "get", "secrets", { name }));
    assert.deepEqual(get("a", "db-creds"), ALLOW);
    assert.deepEqual(get("a", "env-secret"), ALLOW);
    assert.deepEqual(get("a", "registry-key"), ALLOW);
    assert.deepEqual(get("b", "db-creds"), NO_RELATIONSHIP("b"));
    assert.deepEqual(get("a", "unrelated"), NO_RELATIONSHIP("a"));
    // Another namespace's secret of the same name is another object.
    assert.deepEqual(
      authz.authorize(attrs(node("a"), "get", "secrets", { name: "db-creds", namespace: "other" })),
      NO_RELATIONSHIP("a"),
    );
    // A watch of the one object is a read of it; a list of all is not.
    assert.deepEqual(authz.authorize(attrs(node("a"), "watch", "secrets", { name: "db-creds" })), ALLOW);
    assert.deepEqual(authz.authorize(attrs(node("a"), "list", "secrets")), {
      decision: "noOpinion",
      reason: "No Object name found",
    });
    assert.deepEqual(authz.authorize(attrs(node("a"), "update", "secrets", { name: "db-creds" })), {
      decision: "noOpinion",
      reason: "can only read resources of this type",
    });
    assert.deepEqual(
      authz.authorize(attrs(node("a"), "get", "secrets", { name: "db-creds", namespace: "" })),
      {
        decision: "noOpinion",
        reason: "can only read namespaced object of this type",
      },
    );
  });

  it("lets a node read config maps named in env and projected volumes", () => {
    const get = (who: string, name: string) =>
      authz.authorize(attrs(node(who), "get", "configmaps", { name }));
    assert.deepEqual(get("a", "settings"), ALLOW);
    assert.deepEqual(get("a", "projected-cm"), ALLOW);
    assert.deepEqual(get("b", "settings"), NO_RELATIONSHIP("b"));
    assert.deepEqual(get("a", "db-creds"), NO_RELATIONSHIP("a"), "a secret's name is not a config map");
  });

  it("lets a node create tokens only for its pods' service accounts", () => {
    const token = (who: string, name: string, verb = "create", sub = "token") =>
      authz.authorize(attrs(node(who), verb, `serviceaccounts/${sub}`, { name }));
    assert.deepEqual(token("a", "web-sa"), ALLOW);
    assert.deepEqual(token("b", "web-sa"), NO_RELATIONSHIP("b"));
    assert.deepEqual(token("a", "default"), NO_RELATIONSHIP("a"));
    assert.deepEqual(authz.authorize(attrs(node("a"), "get", "serviceaccounts", { name: "web-sa" })), {
      decision: "noOpinion",
      reason: "can only create tokens for individual service accounts",
    });
    assert.deepEqual(authz.authorize(attrs(node("a"), "create", "serviceaccounts", { name: "web-sa" })), {
      decision: "noOpinion",
      reason: "can only create token subresource of serviceaccount",
    });
  });

  it("follows claims to their volumes", () => {
    assert.deepEqual(
      authz.authorize(attrs(node("a"), "get", "persistentvolumeclaims", { name: "data" })),
      ALLOW,
    );
    assert.deepEqual(
      authz.authorize(attrs(node("a"), "get", "persistentvolumes", { name: "pv-1", namespace: "" })),
      ALLOW,
    );
    assert.deepEqual(
      authz.authorize(attrs(node("b"), "get", "persistentvolumes", { name: "pv-1", namespace: "" })),
      NO_RELATIONSHIP("b"),
    );
    assert.deepEqual(
      authz.authorize(attrs(node("a"), "get", "persistentvolumes", { name: "pv-2", namespace: "" })),
      NO_RELATIONSHIP("a"),
    );
    assert.deepEqual(authz.authorize(attrs(node("a"), "list", "persistentvolumeclaims", { name: "data" })), {
      decision: "noOpinion",
      reason: "can only get individual resources of this type",
    });
    assert.deepEqual(
      authz.authorize(attrs(node("a"), "patch", "persistentvolumeclaims/status", { name: "data" })),
      ALLOW,
    );
  });

  it("takes access away when the pod goes, and gives it to the node a new pod is bound to", async () => {
    await pods.create("default", {
      metadata: { name: "mover" },
      spec: {
        nodeName: "a",
        containers: [{ name: "c", image: "busybox" }],
        volumes: [{ name: "v", secret: { secretName: "moving" } }],
      },
    });
    const get = (who: string) => () =>
      authz.authorize(attrs(node(who), "get", "secrets", { name: "moving" }));
    await eventually(get("a"), ALLOW);
    // A bound pod goes with the kubelet's grace-0 delete; the first one only marks it terminating.
    await pods.delete("default", "mover", { gracePeriodSeconds: 0 });
    await eventually(get("a"), NO_RELATIONSHIP("a"));
    await pods.create("default", {
      metadata: { name: "mover" },
      spec: {
        nodeName: "b",
        containers: [{ name: "c", image: "busybox" }],
        volumes: [{ name: "v", secret: { secretName: "moving" } }],
      },
    });
    await eventually(get("b"), ALLOW);
    assert.deepEqual(get("a")(), NO_RELATIONSHIP("a"));
    await pods.delete("default", "mover", { gracePeriodSeconds: 0 });
    await eventually(get("b"), NO_RELATIONSHIP("b"));
  });

  it("grants access once an unbound pod is bound, and only while a reference remains", async () => {
    await pods.create("default", {
      metadata: { name: "late" },
      spec: {
        containers: [{ name: "c", image: "busybox" }],
        volumes: [{ name: "v", configMap: { name: "late-cm" } }],
      },
    });
    const get = () => authz.authorize(attrs(node("c"), "get", "configmaps", { name: "late-cm" }));
    assert.deepEqual(get(), NO_RELATIONSHIP("c"));
    // Bound as the scheduler binds it: through the binding subresource.
    await pods.update(
      "default",
      "late",
      (cur) => {
        const pod = cur as Record<string, unknown>;
        return { ...pod, spec: { ...(pod.spec as Record<string, unknown>), nodeName: "c" } };
      },
      { subresource: "binding" },
    );
    await eventually(get, ALLOW);
    // Two pods share the config map; removing one keeps the access.
    await pods.create("default", {
      metadata: { name: "late-2" },
      spec: {
        nodeName: "c",
        containers: [{ name: "c", image: "busybox" }],
        volumes: [{ name: "v", configMap: { name: "late-cm" } }],
      },
    });
    await eventually(
      () => authz.authorize(attrs(node("c"), "update", "pods/status", { name: "late-2" })),
      ALLOW,
    );
    await pods.delete("default", "late", { gracePeriodSeconds: 0 });
    await eventually(
      () => authz.authorize(attrs(node("c"), "update", "pods/status", { name: "late" })),
      NO_RELATIONSHIP("c"),
    );
    assert.deepEqual(get(), ALLOW);
    await pods.delete("default", "late-2", { gracePeriodSeconds: 0 });
    await eventually(get, NO_RELATIONSHIP("c"));
  });

  it("leaves Node objects to the static node rules, as 1.27 does", () => {
    // The rules given here grant events only: Node requests get no subdivision of their own, so
    // reads and writes of any Node, its own included, are the static rules' to grant.
    const nodes = (who: string, verb: string, resource: string, name: string) =>
      authz.authorize(attrs(node(who), verb, resource, { name, namespace: "" }));
    for (const [verb, resource, name] of [
      ["get", "nodes", "a"],
      ["get", "nodes", "b"],
      ["list", "nodes", ""],
      ["update", "nodes", "a"],
      ["patch", "nodes/status", "b"],
    ] as const)
      assert.deepEqual(nodes("a", verb, resource, name), { decision: "noOpinion", reason: "" });
    const withNodeRules = nodeAuthorizer({
      naming: n,
      objects: objectAccess(plane.resources, stop.signal, (err) => assert.fail(String(err))),
      staticRules: (a) => a.resource === "nodes" && ["get", "list", "watch"].includes(a.verb),
    });
    try {
      for (const name of ["a", "b", ""])
        assert.deepEqual(
          withNodeRules.authorize(attrs(node("a"), name ? "get" : "list", "nodes", { name, namespace: "" })),
          ALLOW,
        );
    } finally {
      withNodeRules.stop();
    }
  });

  it("lets a node update the status of its own pods only", () => {
    const status = (who: string, verb: string, name: string) =>
      authz.authorize(attrs(node(who), verb, "pods/status", { name }));
    assert.deepEqual(status("a", "update", "web"), ALLOW);
    assert.deepEqual(status("a", "patch", "web"), ALLOW);
    assert.deepEqual(status("b", "patch", "web"), NO_RELATIONSHIP("b"));
    assert.deepEqual(status("a", "get", "web"), { decision: "noOpinion", reason: "" });
    // Reading pods is left to the other authorizers.
    assert.deepEqual(authz.authorize(attrs(node("a"), "list", "pods")), {
      decision: "noOpinion",
      reason: "",
    });
  });

  it("lets a node use the lease named after it in the node-lease namespace", () => {
    const lease = (verb: string, name: string, namespace = n.nodeLeaseNamespace) =>
      authz.authorize(
        attrs(node("a"), verb, "leases", { name, namespace, apiGroup: n.group("coordination") }),
      );
    assert.deepEqual(lease("get", "a"), ALLOW);
    assert.deepEqual(lease("update", "a"), ALLOW);
    assert.deepEqual(lease("create", ""), ALLOW);
    assert.deepEqual(lease("update", "b"), {
      decision: "noOpinion",
      reason: "can only access node lease with the same name as the requesting node",
    });
    assert.deepEqual(lease("get", "a", "default"), {
      decision: "noOpinion",
      reason: `can only access leases in the "${n.nodeLeaseNamespace}" system namespace`,
    });
    assert.deepEqual(lease("list", ""), {
      decision: "noOpinion",
      reason: "can only get, create, update, patch, or delete a node lease",
    });
  });

  it("has no opinion on anyone but an identified node", () => {
    const secret = { name: "db-creds" };
    const user = (username: string, groups: string[]): UserInfo => ({ username, uid: "", groups, extra: {} });
    assert.deepEqual(authz.authorize(attrs(user("alice", ["system:nodes"]), "get", "secrets", secret)), {
      decision: "noOpinion",
      reason: "",
    });
    assert.deepEqual(
      authz.authorize(attrs(user("system:node:a", ["system:authenticated"]), "get", "secrets", secret)),
      { decision: "noOpinion", reason: "" },
      "the name alone does not make a node",
    );
    assert.deepEqual(
      authz.authorize(attrs(user("system:node:", ["system:nodes"]), "get", "secrets", secret)),
      {
        decision: "noOpinion",
        reason: 'unknown node for user "system:node:"',
      },
    );
  });

  it("sends what it does not subdivide to the static node rules", () => {
    assert.deepEqual(authz.authorize(attrs(node("a"), "create", "events")), ALLOW);
    assert.deepEqual(authz.authorize(attrs(node("a"), "delete", "events", { name: "e" })), {
      decision: "noOpinion",
      reason: "",
    });
    assert.deepEqual(
      authz.authorize({ ...attrs(node("a"), "get", ""), isResourceRequest: false, path: "/healthz" }),
      { decision: "noOpinion", reason: "" },
    );
  });

  it("cannot list a node's rules", () => {
    assert.deepEqual(authz.rulesFor?.(node("a"), "default"), {
      resourceRules: [],
      nonResourceRules: [],
      incomplete: true,
      evaluationError: "node authorizer does not support user rule resolution",
    });
    assert.deepEqual(authz.rulesFor?.({ username: "bob", uid: "", groups: [], extra: {} }, "default"), {
      resourceRules: [],
      nonResourceRules: [],
      incomplete: false,
    });
  });
});

describe("Node authorizer without pods served", () => {
  it("relates nothing and still answers", async () => {
    const s = new MemoryStorage();
    const p = await startControlPlane({
      storage: s,
      naming: n,
      kinds: builtinKinds(n),
      historyWindowMs: 60_000,
      maxHistory: 100,
      watchListEnabled: false,
      onError: (err) => assert.fail(String(err)),
    });
    const ctl = new AbortController();
    try {
      const a = nodeAuthorizer({
        naming: n,
        objects: objectAccess(p.resources, ctl.signal, (err) => assert.fail(String(err))),
        staticRules: () => {
          throw new Error("broken rules");
        },
      });
      await a.synced;
      assert.deepEqual(a.authorize(attrs(node("a"), "get", "secrets", { name: "x" })), NO_RELATIONSHIP("a"));
      assert.deepEqual(a.authorize(attrs(node("a"), "create", "events")), {
        decision: "noOpinion",
        reason: "",
      });
      a.stop();
    } finally {
      ctl.abort();
      await p.stop();
      await s.close();
    }
  });
});
