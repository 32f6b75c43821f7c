import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { naming } from "../../naming/naming.ts";
import { builtinColumns } from "./index.ts";
import { assertTolerant, type Case, CREATED, mustColumns, runCases } from "./test-support.ts";

const k8s = naming("kubernetes");
const betaClass = k8s.label("storage-class", "volume.beta");
const meta = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  namespace: "default",
  creationTimestamp: CREATED,
  ...extra,
});

const services: Case[] = [
  {
    name: "cluster IP with two ports",
    group: "",
    plural: "services",
    object: {
      metadata: meta("dns"),
      spec: {
        type: "ClusterIP",
        clusterIP: "10.96.0.10",
        clusterIPs: ["10.96.0.10"],
        ports: [
          { name: "dns", port: 53, protocol: "UDP", targetPort: 53 },
          { name: "dns-tcp", port: 53, protocol: "TCP", targetPort: 53 },
        ],
        selector: { app: "dns" },
      },
    },
    row: [
      ["Type", "string", 0, "ClusterIP"],
      ["Cluster-IP", "string", 0, "10.96.0.10"],
      ["External-IP", "string", 0, "<none>"],
      ["Port(s)", "string", 0, "53/UDP,53/TCP"],
      ["Age", "string", 0, "26h"],
      ["Selector", "string", 1, "app=dns"],
    ],
  },
  {
    name: "load balancer with node ports, ingress points and external IPs",
    group: "",
    plural: "services",
    object: {
      metadata: meta("web"),
      spec: {
        type: "LoadBalancer",
        clusterIPs: ["10.96.4.2", "fd00::4:2"],
        externalIPs: ["198.51.100.7"],
        ports: [
          { name: "http", port: 80, nodePort: 30080, protocol: "TCP" },
          { name: "https", port: 443, nodePort: 30443, protocol: "TCP" },
        ],
        selector: { tier: "front", app: "web" },
      },
      status: {
        loadBalancer: {
          ingress: [{ hostname: "lb.example.com" }, { ip: "203.0.113.10" }, { ip: "203.0.113.10" }],
        },
      },
    },
    row: [
      ["Type", "string", 0, "LoadBalancer"],
      ["Cluster-IP", "string", 0, "10.96.4.2"],
      ["External-IP", "string", 0, "203.0.113.10,lb.example.com,198.51.100.7"],
      ["Port(s)", "string", 0, "80:30080/TCP,443:30443/TCP"],
      ["Age", "string", 0, "26h"],
      ["Selector", "string", 1, "app=web,tier=front"],
    ],
  },
  {
    name: "load balancer not provisioned yet",
    group: "",
    plural: "services",
    object: {
      metadata: meta("pending"),
      spec: { type: "LoadBalancer", clusterIPs: ["10.96.4.3"], ports: [{ port: 8080, protocol: "TCP" }] },
    },
    row: [
      ["Type", "string", 0, "LoadBalancer"],
      ["Cluster-IP", "string", 0, "10.96.4.3"],
      ["External-IP", "string", 0, "<pending>"],
      ["Port(s)", "string", 0, "8080/TCP"],
      ["Age", "string", 0, "26h"],
      ["Selector", "string", 1, "<none>"],
    ],
  },
  {
    name: "external name",
    group: "",
    plural: "services",
    object: { metadata: meta("db"), spec: { type: "ExternalName", externalName: "db.example.com" } },
    row: [
      ["Type", "string", 0, "ExternalName"],
      ["Cluster-IP", "string", 0, "<none>"],
      ["External-IP", "string", 0, "db.example.com"],
      ["Port(s)", "string", 0, "<none>"],
      ["Age", "string", 0, "26h"],
      ["Selector", "string", 1, "<none>"],
    ],
  },
];

const endpoints: Case[] = [
  {
    name: "more addresses than shown",
    group: "",
    plural: "endpoints",
    object: {
      metadata: meta("web"),
      subsets: [
        { addresses: [{ ip: "10.0.0.1" }, { ip: "10.0.0.2" }], ports: [{ port: 8080 }, { port: 9090 }] },
      ],
    },
    row: [
      ["Endpoints", "string", 0, "10.0.0.1:8080,10.0.0.2:8080,10.0.0.1:9090 + 1 more..."],
      ["Age", "string", 0, "26h"],
    ],
  },
  {
    name: "IPv6 address, and a subset without ports",
    group: "",
    plural: "endpoints",
    object: {
      metadata: meta("v6"),
      subsets: [
        { addresses: [{ ip: "fd00::1" }], ports: [{ port: 80 }] },
        { addresses: [{ ip: "10.0.0.5" }] },
      ],
    },
    row: [
      ["Endpoints", "string", 0, "[fd00::1]:80,10.0.0.5"],
      ["Age", "string", 0, "26h"],
    ],
  },
  {
    name: "no subsets",
    group: "",
    plural: "endpoints",
    object: { metadata: meta("empty") },
    row: [
      ["Endpoints", "string", 0, "<none>"],
      ["Age", "string", 0, "26h"],
    ],
  },
];

const quotas: Case[] = [
  {
    name: "requests and limits",
    group: "",
    plural: "resourcequotas",
    object: {
      metadata: meta("compute"),
      spec: { hard: { pods: "10" } },
      status: {
        hard: {
          "requests.memory": "1.5Gi",
          pods: "10",
          "limits.cpu": "2",
          "requests.cpu": "1",
          "limits.memory": "2Gi",
        },
        used: { "requests.cpu": "500m", "requests.memory": "512Mi", "limits.cpu": "1", pods: "3" },
      },
    },
    row: [
      ["Age", "string", 0, "26h"],
      ["Request", "string", 0, "pods: 3/10, requests.cpu: 500m/1, requests.memory: 512Mi/1536Mi"],
      ["Limit", "string", 0, "limits.cpu: 1/2, limits.memory: 0/2Gi"],
    ],
  },
  {
    name: "not counted yet",
    group: "",
    plural: "resourcequotas",
    object: { metadata: meta("new"), spec: { hard: { pods: "10" } } },
    row: [
      ["Age", "string", 0, "26h"],
      ["Request", "string", 0, ""],
      ["Limit", "string", 0, ""],
    ],
  },
];

const volumes: Case[] = [
  {
    name: "bound volume",
    group: "",
    plural: "persistentvolumes",
    object: {
      metadata: { name: "pv1", creationTimestamp: CREATED },
      spec: {
        capacity: { storage: "10Gi" },
        accessModes: ["ReadWriteMany", "ReadWriteOnce"],
        persistentVolumeReclaimPolicy: "Retain",
        storageClassName: "standard",
        volumeMode: "Filesystem",
        claimRef: { kind: "PersistentVolumeClaim", namespace: "default", name: "data" },
        hostPath: { path: "/data" },
      },
      status: { phase: "Bound" },
    },
    row: [
      ["Capacity", "string", 0, "10Gi"],
      ["Access Modes", "string", 0, "RWO,RWX"],
      ["Reclaim Policy", "string", 0, "Retain"],
      ["Status", "string", 0, "Bound"],
      ["Claim", "string", 0, "default/data"],
      ["StorageClass", "string", 0, "standard"],
      ["Reason", "string", 0, ""],
      ["Age", "string", 0, "26h"],
      ["VolumeMode", "string", 1, "Filesystem"],
    ],
  },
  {
    name: "being deleted, class from the beta annotation",
    group: "",
    plural: "persistentvolumes",
    object: {
      metadata: {
        name: "pv2",
        creationTimestamp: CREATED,
        deletionTimestamp: CREATED,
        annotations: { [betaClass]: "slow" },
      },
      spec: { storageClassName: "fast", accessModes: ["ReadWriteOncePod", "ReadOnlyMany"] },
      status: { phase: "Failed", reason: "Recycling failed" },
    },
    row: [
      ["Capacity", "string", 0, "0"],
      ["Access Modes", "string", 0, "ROX,RWOP"],
      ["Reclaim Policy", "string", 0, ""],
      ["Status", "string", 0, "Terminating"],
      ["Claim", "string", 0, ""],
      ["StorageClass", "string", 0, "slow"],
      ["Reason", "string", 0, "Recycling failed"],
      ["Age", "string", 0, "26h"],
      ["VolumeMode", "string", 1, "<unset>"],
    ],
  },
];

const claims: Case[] = [
  {
    name: "bound claim shows the volume's size and modes",
    group: "",
    plural: "persistentvolumeclaims",
    object: {
      metadata: meta("data"),
      spec: {
        accessModes: ["ReadWriteOnce"],
        resources: { requests: { storage: "5Gi" } },
        volumeName: "pv1",
        storageClassName: "standard",
        volumeMode: "Block",
      },
      status: { phase: "Bound", capacity: { storage: "10Gi" }, accessModes: ["ReadWriteOnce"] },
    },
    row: [
      ["Status", "string", 0, "Bound"],
      ["Volume", "string", 0, "pv1"],
      ["Capacity", "string", 0, "10Gi"],
      ["Access Modes", "string", 0, "RWO"],
      ["StorageClass", "string", 0, "standard"],
      ["Age", "string", 0, "26h"],
      ["VolumeMode", "string", 1, "Block"],
    ],
  },
  {
    name: "pending claim",
    group: "",
    plural: "persistentvolumeclaims",
    object: {
      metadata: meta("wait", { annotations: { [betaClass]: "" } }),
      spec: {
        accessModes: ["ReadWriteOnce"],
        resources: { requests: { storage: "5Gi" } },
        storageClassName: "x",
      },
      status: { phase: "Pending" },
    },
    row: [
      ["Status", "string", 0, "Pending"],
      ["Volume", "string", 0, ""],
      ["Capacity", "string", 0, ""],
      ["Access Modes", "string", 0, ""],
      ["StorageClass", "string", 0, ""],
      ["Age", "string", 0, "26h"],
      ["VolumeMode", "string", 1, "<unset>"],
    ],
  },
];

const controllers: Case[] = [
  {
    name: "replication controller",
    group: "",
    plural: "replicationcontrollers",
    object: {
      metadata: meta("nginx"),
      spec: {
        replicas: 3,
        selector: { app: "nginx" },
        template: {
          metadata: { labels: { app: "nginx" } },
          spec: {
            containers: [
              { name: "nginx", image: "nginx:1.25" },
              { name: "sidecar", image: "busybox" },
            ],
          },
        },
      },
      status: { replicas: 3, readyReplicas: 2 },
    },
    row: [
      ["Desired", "integer", 0, 3],
      ["Current", "integer", 0, 3],
      ["Ready", "integer", 0, 2],
      ["Age", "string", 0, "26h"],
      ["Containers", "string", 1, "nginx,sidecar"],
      ["Images", "string", 1, "nginx:1.25,busybox"],
      ["Selector", "string", 1, "app=nginx"],
    ],
  },
  {
    name: "pod template",
    group: "",
    plural: "podtemplates",
    object: {
      metadata: meta("tmpl"),
      template: {
        metadata: { labels: { tier: "front", app: "web" } },
        spec: { containers: [{ name: "web", image: "web:1" }] },
      },
    },
    row: [
      ["Containers", "string", 0, "web"],
      ["Images", "string", 0, "web:1"],
      ["Pod Labels", "string", 0, "app=web,tier=front"],
    ],
  },
];

describe("core columns", () => {
  runCases([...services, ...endpoints, ...quotas, ...volumes, ...claims, ...controllers]);

  it("LimitRange keeps upstream's default table (Name, Created At)", () => {
    assert.deepEqual(mustColumns("", "limitranges"), []);
  });

  it("reads the storage class annotation in the preset's own domain", () => {
    const cluster = builtinColumns(naming("cluster"))("", "persistentvolumes") ?? [];
    const storageClass = cluster.find((c) => c.name === "StorageClass");
    const pv = (key: string) => ({
      metadata: { annotations: { [key]: "slow" } },
      spec: { storageClassName: "fast" },
    });
    assert.equal(storageClass?.cell(pv(naming("cluster").label("storage-class", "volume.beta"))), "slow");
    assert.equal(storageClass?.cell(pv(betaClass)), "fast");
  });

  it("never throws on missing or malformed fields", () => {
    for (const plural of [
      "services",
      "endpoints",
      "resourcequotas",
      "persistentvolumes",
      "persistentvolumeclaims",
      "replicationcontrollers",
      "podtemplates",
    ])
      assertTolerant("", plural);
  });
});
