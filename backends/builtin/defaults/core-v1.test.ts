import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { roundResourceList } from "./core-v1.ts";
import { type DefaultingCase, defaulted } from "./testing.ts";

const DIGEST = `sha256:${"0123456789abcdef".repeat(4)}`;

/** What every probe left without its counts gets. */
const PROBE_COUNTS = { timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 };
const TERMINATION = { terminationMessagePath: "/dev/termination-log", terminationMessagePolicy: "File" };
const POD_SPEC_DEFAULTS = {
  restartPolicy: "Always",
  terminationGracePeriodSeconds: 30,
  dnsPolicy: "ClusterFirst",
  securityContext: {},
  schedulerName: "default-scheduler",
};

const cases: DefaultingCase[] = [
  {
    name: "Pod: spec, containers, ports, env, resources, probes, lifecycle and volumes",
    type: "core/v1.Pod",
    input: {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "web", namespace: "default", labels: { app: "web" } },
      spec: {
        volumes: [
          { name: "config", configMap: { name: "web-config" } },
          { name: "scratch" },
          {
            name: "token",
            projected: {
              sources: [
                { serviceAccountToken: { path: "token" } },
                { downwardAPI: { items: [{ path: "labels", fieldRef: { fieldPath: "metadata.labels" } }] } },
                { configMap: { name: "ca" } },
              ],
            },
          },
          { name: "logs", hostPath: { path: "/var/log" } },
          { name: "creds", secret: { secretName: "creds", defaultMode: 256 } },
          {
            name: "info",
            downwardAPI: { items: [{ path: "name", fieldRef: { fieldPath: "metadata.name" } }] },
          },
          { name: "disk", azureDisk: { diskName: "d", diskURI: "uri" } },
          { name: "block", iscsi: { targetPortal: "10.0.0.1:3260", iqn: "iqn.x", lun: 0 } },
          {
            name: "claim",
            ephemeral: { volumeClaimTemplate: { spec: { accessModes: ["ReadWriteOnce"], resources: {} } } },
          },
        ],
        initContainers: [{ name: "init", image: "busybox:1.36", command: ["sh", "-c", "true"] }],
        containers: [
          {
            name: "web",
            image: "nginx",
            ports: [{ name: "http", containerPort: 80 }],
            env: [
              { name: "POD_IP", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } },
              { name: "MODE", value: "prod" },
            ],
            resources: { limits: { cpu: "500m", memory: "128Mi" }, requests: { cpu: "0.0001" } },
            livenessProbe: { httpGet: { port: 80 } },
            readinessProbe: { tcpSocket: { port: "http" }, periodSeconds: 5 },
            startupProbe: { grpc: { port: 9000 } },
            lifecycle: { preStop: { httpGet: { port: 80, path: "/quit" } } },
          },
          { name: "shipper", image: `registry.example.com/tools/shipper@${DIGEST}`, imagePullPolicy: "" },
        ],
      },
    },
    expected: {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "web", namespace: "default", labels: { app: "web" } },
      spec: {
        volumes: [
          { name: "config", configMap: { name: "web-config", defaultMode: 420 } },
          { name: "scratch", emptyDir: {} },
          {
            name: "token",
            projected: {
              sources: [
                { serviceAccountToken: { path: "token", expirationSeconds: 3600 } },
                {
                  downwardAPI: {
                    items: [{ path: "labels", fieldRef: { fieldPath: "metadata.labels", apiVersion: "v1" } }],
                  },
                },
                { configMap: { name: "ca" } },
              ],
              defaultMode: 420,
            },
          },
          { name: "logs", hostPath: { path: "/var/log", type: "" } },
          { name: "creds", secret: { secretName: "creds", defaultMode: 256 } },
          {
            name: "info",
            downwardAPI: {
              items: [{ path: "name", fieldRef: { fieldPath: "metadata.name", apiVersion: "v1" } }],
              defaultMode: 420,
            },
          },
          {
            name: "disk",
            azureDisk: {
              diskName: "d",
              diskURI: "uri",
              cachingMode: "ReadWrite",
              kind: "Shared",
              fsType: "ext4",
              readOnly: false,
            },
          },
          {
            name: "block",
            iscsi: { targetPortal: "10.0.0.1:3260", iqn: "iqn.x", lun: 0, iscsiInterface: "default" },
          },
          {
            name: "claim",
            ephemeral: {
              volumeClaimTemplate: {
                spec: { accessModes: ["ReadWriteOnce"], resources: {}, volumeMode: "Filesystem" },
              },
            },
          },
        ],
        initContainers: [
          {
            name: "init",
            image: "busybox:1.36",
            command: ["sh", "-c", "true"],
            imagePullPolicy: "IfNotPresent",
            ...TERMINATION,
          },
        ],
        containers: [
          {
            name: "web",
            image: "nginx",
            ports: [{ name: "http", containerPort: 80, protocol: "TCP" }],
            env: [
              { name: "POD_IP", valueFrom: { fieldRef: { fieldPath: "status.podIP", apiVersion: "v1" } } },
              { name: "MODE", value: "prod" },
            ],
            // Requests take the limits they lack (pods only), then amounts round up to milli units.
            resources: { limits: { cpu: "500m", memory: "128Mi" }, requests: { cpu: "1m", memory: "128Mi" } },
            livenessProbe: { httpGet: { port: 80, path: "/", scheme: "HTTP" }, ...PROBE_COUNTS },
            readinessProbe: { tcpSocket: { port: "http" }, ...PROBE_COUNTS, periodSeconds: 5 },
            startupProbe: { grpc: { port: 9000, service: "" }, ...PROBE_COUNTS },
            lifecycle: { preStop: { httpGet: { port: 80, path: "/quit", scheme: "HTTP" } } },
            imagePullPolicy: "Always",
            ...TERMINATION,
          },
          {
            name: "shipper",
            image: `registry.example.com/tools/shipper@${DIGEST}`,
            imagePullPolicy: "IfNotPresent",
            ...TERMINATION,
          },
        ],
        enableServiceLinks: true,
        ...POD_SPEC_DEFAULTS,
      },
    },
  },
  {
    name: "Pod: host networking gives ports their host port; set fields are kept",
    type: "core/v1.Pod",
    input: {
      metadata: { name: "agent" },
      spec: {
        hostNetwork: true,
        restartPolicy: "OnFailure",
        dnsPolicy: "ClusterFirstWithHostNet",
        enableServiceLinks: false,
        terminationGracePeriodSeconds: 0,
        securityContext: { runAsNonRoot: true },
        containers: [
          {
            name: "agent",
            image: "agent:latest",
            imagePullPolicy: "Never",
            ports: [{ containerPort: 9100 }, { containerPort: 9101, hostPort: 9101, protocol: "UDP" }],
          },
        ],
      },
    },
    expected: {
      metadata: { name: "agent" },
      spec: {
        hostNetwork: true,
        restartPolicy: "OnFailure",
        dnsPolicy: "ClusterFirstWithHostNet",
        enableServiceLinks: false,
        terminationGracePeriodSeconds: 0,
        securityContext: { runAsNonRoot: true },
        schedulerName: "default-scheduler",
        containers: [
          {
            name: "agent",
            image: "agent:latest",
            imagePullPolicy: "Never",
            ports: [
              { containerPort: 9100, hostPort: 9100, protocol: "TCP" },
              { containerPort: 9101, hostPort: 9101, protocol: "UDP" },
            ],
            ...TERMINATION,
          },
        ],
      },
    },
  },
  {
    name: "PodTemplate: pod spec defaults (1.27: host ports too) but no pod-only defaults",
    type: "core/v1.PodTemplate",
    input: {
      metadata: { name: "tpl" },
      template: {
        metadata: { labels: { app: "x" } },
        spec: {
          hostNetwork: true,
          containers: [
            {
              name: "c",
              image: "app:2",
              ports: [{ containerPort: 8080 }],
              resources: { limits: { cpu: "1" } },
            },
          ],
        },
      },
    },
    expected: {
      metadata: { name: "tpl" },
      template: {
        metadata: { labels: { app: "x" } },
        spec: {
          hostNetwork: true,
          containers: [
            {
              name: "c",
              image: "app:2",
              ports: [{ containerPort: 8080, hostPort: 8080, protocol: "TCP" }],
              resources: { limits: { cpu: "1" } },
              imagePullPolicy: "IfNotPresent",
              ...TERMINATION,
            },
          ],
          ...POD_SPEC_DEFAULTS,
        },
      },
    },
  },
  {
    name: "Service: ClusterIP ports",
    type: "core/v1.Service",
    input: {
      metadata: { name: "web" },
      spec: {
        selector: { app: "web" },
        ports: [
          { name: "http", port: 80, targetPort: 8080 },
          { name: "metrics", port: 9090 },
          { name: "dns", port: 53, protocol: "UDP", targetPort: "" },
        ],
        sessionAffinityConfig: { clientIP: { timeoutSeconds: 60 } },
      },
    },
    expected: {
      metadata: { name: "web" },
      spec: {
        selector: { app: "web" },
        ports: [
          { name: "http", port: 80, targetPort: 8080, protocol: "TCP" },
          { name: "metrics", port: 9090, protocol: "TCP", targetPort: 9090 },
          { name: "dns", port: 53, protocol: "UDP", targetPort: 53 },
        ],
        sessionAffinity: "None",
        type: "ClusterIP",
        internalTrafficPolicy: "Cluster",
      },
    },
  },
  {
    name: "Service: LoadBalancer with client IP affinity",
    type: "core/v1.Service",
    input: {
      metadata: { name: "edge" },
      spec: {
        type: "LoadBalancer",
        sessionAffinity: "ClientIP",
        ports: [{ port: 443, targetPort: "https" }],
      },
    },
    expected: {
      metadata: { name: "edge" },
      spec: {
        type: "LoadBalancer",
        sessionAffinity: "ClientIP",
        sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } },
        ports: [{ port: 443, targetPort: "https", protocol: "TCP" }],
        externalTrafficPolicy: "Cluster",
        internalTrafficPolicy: "Cluster",
        allocateLoadBalancerNodePorts: true,
      },
    },
  },
  {
    name: "Service: 1.27 gives a ClusterIP service with external IPs no external traffic policy",
    type: "core/v1.Service",
    input: { metadata: { name: "ext" }, spec: { externalIPs: ["192.0.2.10"], ports: [{ port: 80 }] } },
    expected: {
      metadata: { name: "ext" },
      spec: {
        externalIPs: ["192.0.2.10"],
        ports: [{ port: 80, protocol: "TCP", targetPort: 80 }],
        sessionAffinity: "None",
        type: "ClusterIP",
        internalTrafficPolicy: "Cluster",
      },
    },
  },
  {
    name: "Service: ExternalName gets no traffic policies",
    type: "core/v1.Service",
    input: { metadata: { name: "db" }, spec: { type: "ExternalName", externalName: "db.example.com" } },
    expected: {
      metadata: { name: "db" },
      spec: { type: "ExternalName", externalName: "db.example.com", sessionAffinity: "None" },
    },
  },
  {
    name: "PersistentVolume: phase, reclaim policy, volume mode, source defaults, capacity rounding",
    type: "core/v1.PersistentVolume",
    input: {
      metadata: { name: "pv1" },
      spec: {
        capacity: { storage: "10Gi" },
        accessModes: ["ReadWriteOnce"],
        rbd: { monitors: ["10.0.0.1:6789"], image: "img" },
        storageClassName: "slow",
      },
    },
    expected: {
      metadata: { name: "pv1" },
      spec: {
        capacity: { storage: "10Gi" },
        accessModes: ["ReadWriteOnce"],
        rbd: {
          monitors: ["10.0.0.1:6789"],
          image: "img",
          pool: "rbd",
          user: "admin",
          keyring: "/etc/ceph/keyring",
        },
        storageClassName: "slow",
        persistentVolumeReclaimPolicy: "Retain",
        volumeMode: "Filesystem",
      },
      status: { phase: "Pending" },
    },
  },
  {
    name: "PersistentVolume: scaleIO source; set fields are kept",
    type: "core/v1.PersistentVolume",
    input: {
      metadata: { name: "pv2" },
      spec: {
        persistentVolumeReclaimPolicy: "Delete",
        volumeMode: "Block",
        scaleIO: { gateway: "gw", system: "sys", secretRef: { name: "s" } },
      },
      status: { phase: "Bound" },
    },
    expected: {
      metadata: { name: "pv2" },
      spec: {
        persistentVolumeReclaimPolicy: "Delete",
        volumeMode: "Block",
        scaleIO: {
          gateway: "gw",
          system: "sys",
          secretRef: { name: "s" },
          storageMode: "ThinProvisioned",
          fsType: "xfs",
        },
      },
      status: { phase: "Bound" },
    },
  },
  {
    name: "PersistentVolumeClaim: volume mode and phase",
    type: "core/v1.PersistentVolumeClaim",
    input: {
      metadata: { name: "data" },
      spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
    },
    expected: {
      metadata: { name: "data" },
      spec: {
        accessModes: ["ReadWriteOnce"],
        resources: { requests: { storage: "1Gi" } },
        volumeMode: "Filesystem",
      },
      status: { phase: "Pending" },
    },
  },
  {
    name: "Namespace: name label and phase",
    type: "core/v1.Namespace",
    input: { metadata: { name: "team-a", labels: { owner: "a" } } },
    expected: {
      metadata: { name: "team-a", labels: { owner: "a", "cluster.io/metadata.name": "team-a" } },
      status: { phase: "Active" },
    },
  },
  {
    name: "Namespace: the kubernetes preset's label; a set phase is kept",
    type: "core/v1.Namespace",
    preset: "kubernetes",
    input: { metadata: { name: "team-b" }, status: { phase: "Terminating" } },
    expected: {
      metadata: { name: "team-b", labels: { "kubernetes.io/metadata.name": "team-b" } },
      status: { phase: "Terminating" },
    },
  },
  {
    name: "Namespace: a generated name gets no label yet",
    type: "core/v1.Namespace",
    input: { metadata: { generateName: "tmp-" } },
    expected: { metadata: { generateName: "tmp-" }, status: { phase: "Active" } },
  },
  {
    name: "Node: allocatable from capacity",
    type: "core/v1.Node",
    input: {
      metadata: { name: "n1" },
      status: {
        capacity: { cpu: "4", memory: "16Gi", pods: "110" },
        nodeInfo: { kubeletVersion: "v1.27.3" },
      },
    },
    expected: {
      metadata: { name: "n1" },
      status: {
        capacity: { cpu: "4", memory: "16Gi", pods: "110" },
        allocatable: { cpu: "4", memory: "16Gi", pods: "110" },
        nodeInfo: { kubeletVersion: "v1.27.3" },
      },
    },
  },
  {
    name: "Secret: Opaque",
    type: "core/v1.Secret",
    input: { metadata: { name: "s" }, data: { k: "dg==" } },
    expected: { metadata: { name: "s" }, data: { k: "dg==" }, type: "Opaque" },
  },
  {
    name: "ReplicationController: selector, labels and replicas from the template",
    type: "core/v1.ReplicationController",
    input: {
      metadata: { name: "rc" },
      spec: {
        template: {
          metadata: { labels: { app: "rc" } },
          spec: { containers: [{ name: "c", image: "app:1" }] },
        },
      },
    },
    expected: {
      metadata: { name: "rc", labels: { app: "rc" } },
      spec: {
        selector: { app: "rc" },
        replicas: 1,
        template: {
          metadata: { labels: { app: "rc" } },
          spec: {
            containers: [{ name: "c", image: "app:1", imagePullPolicy: "IfNotPresent", ...TERMINATION }],
            ...POD_SPEC_DEFAULTS,
          },
        },
      },
    },
  },
  {
    name: "Endpoints: port protocol",
    type: "core/v1.Endpoints",
    input: {
      metadata: { name: "web" },
      subsets: [
        {
          addresses: [{ ip: "10.1.0.5" }],
          ports: [
            { name: "http", port: 8080 },
            { port: 53, protocol: "UDP" },
          ],
        },
      ],
    },
    expected: {
      metadata: { name: "web" },
      subsets: [
        {
          addresses: [{ ip: "10.1.0.5" }],
          ports: [
            { name: "http", port: 8080, protocol: "TCP" },
            { port: 53, protocol: "UDP" },
          ],
        },
      ],
    },
  },
  {
    name: "LimitRange: container defaults from max, default and min",
    type: "core/v1.LimitRange",
    input: {
      metadata: { name: "limits" },
      spec: {
        limits: [
          {
            type: "Container",
            max: { cpu: "2" },
            min: { memory: "64Mi", cpu: "10m" },
            default: { memory: "512Mi" },
          },
          { type: "Pod", max: { cpu: "4" } },
        ],
      },
    },
    expected: {
      metadata: { name: "limits" },
      spec: {
        limits: [
          {
            type: "Container",
            max: { cpu: "2" },
            min: { memory: "64Mi", cpu: "10m" },
            default: { memory: "512Mi", cpu: "2" },
            defaultRequest: { memory: "512Mi", cpu: "2" },
          },
          { type: "Pod", max: { cpu: "4" } },
        ],
      },
    },
  },
  {
    name: "ResourceQuota: amounts round up to milli units",
    type: "core/v1.ResourceQuota",
    input: { metadata: { name: "q" }, spec: { hard: { "requests.cpu": "0.0005", pods: "10" } } },
    expected: { metadata: { name: "q" }, spec: { hard: { "requests.cpu": "1m", pods: "10" } } },
  },
];

describe("core/v1 defaults", () => {
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(defaulted(c.type, c.input, c.preset), c.expected));
  }

  it("leaves wrongly typed values alone", () => {
    const input = {
      spec: {
        containers: [{ name: "c", image: 7, ports: "x", resources: { limits: "x" } }],
        securityContext: "x",
        volumes: [{ name: "v", hostPath: "x" }],
      },
    };
    assert.deepEqual(defaulted("core/v1.Pod", input), {
      spec: {
        containers: [{ name: "c", image: 7, ports: "x", resources: { limits: "x" }, ...TERMINATION }],
        securityContext: "x",
        volumes: [{ name: "v", hostPath: "x" }],
        enableServiceLinks: true,
        restartPolicy: "Always",
        terminationGracePeriodSeconds: 30,
        dnsPolicy: "ClusterFirst",
        schedulerName: "default-scheduler",
      },
    });
  });

  it("defaults a copy of the template labels, not a shared map", () => {
    const rc = defaulted("core/v1.ReplicationController", {
      spec: { template: { metadata: { labels: { app: "x" } } } },
    }) as { spec: { selector: object; template: { metadata: { labels: object } } } };
    assert.notEqual(rc.spec.selector, rc.spec.template.metadata.labels);
  });
});

describe("roundResourceList", () => {
  const cases: [unknown, unknown][] = [
    ["100m", "100m"],
    ["1.5", "1.5"],
    ["0.0001", "1m"],
    ["100u", "1m"],
    ["1n", "1m"],
    ["1.5m", "2m"],
    ["-0.0001", "-1m"],
    ["1.0001", "1001m"],
    ["1e-4", "1e-3"],
    ["0.0001Ki", "103m"],
    [0.0001, "1m"],
    [2, 2],
    ["64Mi", "64Mi"],
    ["not a quantity", "not a quantity"],
    [true, true],
  ];
  for (const [input, expected] of cases) {
    it(`${JSON.stringify(input)} → ${JSON.stringify(expected)}`, () => {
      const list = { r: input };
      roundResourceList(list);
      assert.deepEqual(list, { r: expected });
    });
  }
});
