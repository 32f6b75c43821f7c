import { describe, it } from "node:test";
import { assertTolerant, type Case, CREATED, runCases } from "./test-support.ts";

const meta = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  namespace: "default",
  creationTimestamp: CREATED,
  ...extra,
});
const template = {
  metadata: { labels: { app: "web" } },
  spec: {
    containers: [
      { name: "web", image: "registry.example.com/web:2.1" },
      { name: "proxy", image: "envoy:1.29" },
    ],
  },
};

const cases: Case[] = [
  {
    name: "deployment rolling out",
    group: "apps",
    plural: "deployments",
    object: {
      metadata: meta("web"),
      spec: {
        replicas: 3,
        selector: {
          matchLabels: { app: "web" },
          matchExpressions: [{ key: "tier", operator: "In", values: ["front", "edge"] }],
        },
        template,
      },
      status: { replicas: 3, readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
    },
    row: [
      ["Ready", "string", 0, "2/3"],
      ["Up-to-date", "string", 0, 3],
      ["Available", "string", 0, 2],
      ["Age", "string", 0, "26h"],
      ["Containers", "string", 1, "web,proxy"],
      ["Images", "string", 1, "registry.example.com/web:2.1,envoy:1.29"],
      ["Selector", "string", 1, "app=web,tier in (edge,front)"],
    ],
  },
  {
    name: "deployment without status or selector",
    group: "apps",
    plural: "deployments",
    object: { metadata: meta("fresh"), spec: { replicas: 1, template } },
    row: [
      ["Ready", "string", 0, "0/1"],
      ["Up-to-date", "string", 0, 0],
      ["Available", "string", 0, 0],
      ["Age", "string", 0, "26h"],
      ["Containers", "string", 1, "web,proxy"],
      ["Images", "string", 1, "registry.example.com/web:2.1,envoy:1.29"],
      ["Selector", "string", 1, ""],
    ],
  },
  {
    name: "deployment with a selector that does not parse",
    group: "apps",
    plural: "deployments",
    object: {
      metadata: meta("odd"),
      spec: {
        replicas: 2,
        selector: { matchExpressions: [{ key: "app", operator: "Like", values: ["x"] }] },
      },
      status: { readyReplicas: 2, updatedReplicas: 2, availableReplicas: 2 },
    },
    row: [
      ["Ready", "string", 0, "2/2"],
      ["Up-to-date", "string", 0, 2],
      ["Available", "string", 0, 2],
      ["Age", "string", 0, "26h"],
      ["Containers", "string", 1, ""],
      ["Images", "string", 1, ""],
      ["Selector", "string", 1, "<invalid>"],
    ],
  },
  {
    name: "stateful set",
    group: "apps",
    plural: "statefulsets",
    object: {
      metadata: meta("db"),
      spec: { replicas: 3, serviceName: "db", selector: { matchLabels: { app: "db" } }, template },
      status: { replicas: 2, readyReplicas: 1 },
    },
    row: [
      ["Ready", "string", 0, "1/3"],
      ["Age", "string", 0, "26h"],
      ["Containers", "string", 1, "web,proxy"],
      ["Images", "string", 1, "registry.example.com/web:2.1,envoy:1.29"],
    ],
  },
  {
    name: "daemon set with a node selector",
    group: "apps",
    plural: "daemonsets",
    object: {
      metadata: meta("agent"),
      spec: {
        selector: { matchLabels: { name: "agent" } },
        template: {
          spec: {
            nodeSelector: { os: "linux", arch: "amd64" },
            containers: [{ name: "agent", image: "agent:3" }],
          },
        },
      },
      status: {
        desiredNumberScheduled: 3,
        currentNumberScheduled: 3,
        numberReady: 2,
        updatedNumberScheduled: 3,
        numberAvailable: 2,
      },
    },
    row: [
      ["Desired", "integer", 0, 3],
      ["Current", "integer", 0, 3],
      ["Ready", "integer", 0, 2],
      ["Up-to-date", "integer", 0, 3],
      ["Available", "integer", 0, 2],
      ["Node Selector", "string", 0, "arch=amd64,os=linux"],
      ["Age", "string", 0, "26h"],
      ["Containers", "string", 1, "agent"],
      ["Images", "string", 1, "agent:3"],
      ["Selector", "string", 1, "name=agent"],
    ],
  },
  {
    name: "daemon set on every node, selector with an invalid key",
    group: "apps",
    plural: "daemonsets",
    object: {
      metadata: meta("all"),
      spec: { selector: { matchLabels: { "bad key": "x" } }, template: { spec: { containers: [] } } },
    },
    row: [
      ["Desired", "integer", 0, 0],
      ["Current", "integer", 0, 0],
      ["Ready", "integer", 0, 0],
      ["Up-to-date", "integer", 0, 0],
      ["Available", "integer", 0, 0],
      ["Node Selector", "string", 0, "<none>"],
      ["Age", "string", 0, "26h"],
      ["Containers", "string", 1, ""],
      ["Images", "string", 1, ""],
      ["Selector", "string", 1, "<error>"],
    ],
  },
  {
    name: "replica set",
    group: "apps",
    plural: "replicasets",
    object: {
      metadata: meta("web-5d4f8"),
      spec: {
        replicas: 3,
        selector: {
          matchLabels: { "pod-template-hash": "5d4f8", app: "web" },
          matchExpressions: [
            { key: "canary", operator: "DoesNotExist" },
            { key: "zone", operator: "NotIn", values: ["b", "a"] },
            { key: "app", operator: "Exists" },
          ],
        },
        template,
      },
      status: { replicas: 3, readyReplicas: 3 },
    },
    row: [
      ["Desired", "integer", 0, 3],
      ["Current", "integer", 0, 3],
      ["Ready", "integer", 0, 3],
      ["Age", "string", 0, "26h"],
      ["Containers", "string", 1, "web,proxy"],
      ["Images", "string", 1, "registry.example.com/web:2.1,envoy:1.29"],
      ["Selector", "string", 1, "app=web,app,!canary,pod-template-hash=5d4f8,zone notin (a,b)"],
    ],
  },
  {
    name: "replica set with an empty selector",
    group: "apps",
    plural: "replicasets",
    object: { metadata: meta("all"), spec: { replicas: 0, selector: {}, template } },
    row: [
      ["Desired", "integer", 0, 0],
      ["Current", "integer", 0, 0],
      ["Ready", "integer", 0, 0],
      ["Age", "string", 0, "26h"],
      ["Containers", "string", 1, "web,proxy"],
      ["Images", "string", 1, "registry.example.com/web:2.1,envoy:1.29"],
      ["Selector", "string", 1, "<none>"],
    ],
  },
  {
    name: "controller revision of a stateful set",
    group: "apps",
    plural: "controllerrevisions",
    object: {
      metadata: meta("db-7c9f", {
        ownerReferences: [
          { apiVersion: "v1", kind: "ConfigMap", name: "other", uid: "u0" },
          { apiVersion: "apps/v1", kind: "StatefulSet", name: "db", uid: "u1", controller: true },
        ],
      }),
      data: {},
      revision: 2,
    },
    row: [
      ["Controller", "string", 0, "statefulset.apps/db"],
      ["Revision", "string", 0, 2],
      ["Age", "string", 0, "26h"],
    ],
  },
  {
    name: "controller revision without a controller",
    group: "apps",
    plural: "controllerrevisions",
    object: {
      metadata: meta("orphan", { ownerReferences: [{ apiVersion: "v1", kind: "Pod", name: "p", uid: "u" }] }),
      revision: 1,
    },
    row: [
      ["Controller", "string", 0, "<none>"],
      ["Revision", "string", 0, 1],
      ["Age", "string", 0, "26h"],
    ],
  },
  {
    name: "controller revision owned by a core kind",
    group: "apps",
    plural: "controllerrevisions",
    object: {
      metadata: meta("core", {
        ownerReferences: [{ apiVersion: "v1", kind: "ReplicationController", name: "rc", controller: true }],
      }),
      revision: 5,
    },
    row: [
      ["Controller", "string", 0, "replicationcontroller/rc"],
      ["Revision", "string", 0, 5],
      ["Age", "string", 0, "26h"],
    ],
  },
];

describe("apps columns", () => {
  runCases(cases);
  it("never throws on missing or malformed fields", () => {
    for (const plural of ["deployments", "statefulsets", "daemonsets", "replicasets", "controllerrevisions"])
      assertTolerant("apps", plural);
  });
});
