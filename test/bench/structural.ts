// Microbenchmark: defaulting plus validation (and the full decode path: prune, drop nulls,
// default, validate) of a realistic Deployment against a Deployment-like schema.
// Run: node backends/schema/structural/bench.ts [rounds]
import { compileSchema } from "../../backends/schema/structural/compile.ts";
import type { StructuralSchema } from "../../backends/schema/structural/types.ts";

const str: StructuralSchema = { type: "string" };
const int: StructuralSchema = { type: "integer", format: "int32" };
const bool: StructuralSchema = { type: "boolean" };
const stringMap: StructuralSchema = { type: "object", additionalProperties: str };
const quantity: StructuralSchema = { format: "quantity" };
const intOrString: StructuralSchema = { "x-kubernetes-int-or-string": true };
const objectMeta: StructuralSchema = {
  type: "object",
  properties: {
    name: str,
    namespace: str,
    labels: stringMap,
    annotations: stringMap,
    generateName: str,
    uid: str,
    resourceVersion: str,
    generation: { type: "integer", format: "int64" },
    creationTimestamp: { type: "string", format: "date-time", nullable: true },
  },
};
const labelSelector: StructuralSchema = {
  type: "object",
  properties: {
    matchLabels: stringMap,
    matchExpressions: {
      type: "array",
      items: {
        type: "object",
        required: ["key", "operator"],
        properties: {
          key: str,
          operator: { type: "string", enum: ["In", "NotIn", "Exists", "DoesNotExist"] },
          values: { type: "array", items: str },
        },
      },
    },
  },
};
const probe: StructuralSchema = {
  type: "object",
  properties: {
    httpGet: {
      type: "object",
      required: ["port"],
      properties: { path: str, port: intOrString, scheme: { type: "string", default: "HTTP" } },
    },
    tcpSocket: { type: "object", properties: { port: intOrString } },
    exec: { type: "object", properties: { command: { type: "array", items: str } } },
    initialDelaySeconds: int,
    periodSeconds: { ...int, default: 10 },
    timeoutSeconds: { ...int, default: 1 },
    successThreshold: { ...int, default: 1 },
    failureThreshold: { ...int, default: 3 },
  },
};
const resources: StructuralSchema = {
  type: "object",
  properties: {
    limits: { type: "object", additionalProperties: quantity },
    requests: { type: "object", additionalProperties: quantity },
  },
};
const securityContext: StructuralSchema = {
  type: "object",
  properties: {
    runAsUser: { type: "integer", format: "int64" },
    runAsNonRoot: bool,
    readOnlyRootFilesystem: bool,
    allowPrivilegeEscalation: bool,
    capabilities: {
      type: "object",
      properties: { drop: { type: "array", items: str }, add: { type: "array", items: str } },
    },
  },
};
const container: StructuralSchema = {
  type: "object",
  required: ["name"],
  properties: {
    name: str,
    image: str,
    imagePullPolicy: { type: "string", enum: ["Always", "IfNotPresent", "Never"] },
    command: { type: "array", items: str },
    args: { type: "array", items: str },
    ports: {
      type: "array",
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["containerPort", "protocol"],
      items: {
        type: "object",
        required: ["containerPort"],
        properties: { name: str, containerPort: int, protocol: { type: "string", default: "TCP" } },
      },
    },
    env: {
      type: "array",
      items: {
        type: "object",
        required: ["name"],
        properties: {
          name: str,
          value: str,
          valueFrom: {
            type: "object",
            properties: {
              secretKeyRef: { type: "object", properties: { name: str, key: str, optional: bool } },
            },
          },
        },
      },
    },
    resources,
    livenessProbe: probe,
    readinessProbe: probe,
    securityContext,
    volumeMounts: {
      type: "array",
      items: {
        type: "object",
        required: ["name", "mountPath"],
        properties: { name: str, mountPath: str, readOnly: bool },
      },
    },
    terminationMessagePath: { type: "string", default: "/dev/termination-log" },
    terminationMessagePolicy: { type: "string", default: "File" },
  },
};
const podSpec: StructuralSchema = {
  type: "object",
  required: ["containers"],
  properties: {
    containers: {
      type: "array",
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["name"],
      items: container,
    },
    initContainers: { type: "array", items: container },
    restartPolicy: { type: "string", enum: ["Always", "OnFailure", "Never"], default: "Always" },
    dnsPolicy: { type: "string", default: "ClusterFirst" },
    schedulerName: { type: "string", default: "default-scheduler" },
    terminationGracePeriodSeconds: { type: "integer", format: "int64", default: 30 },
    serviceAccountName: str,
    nodeSelector: stringMap,
    securityContext: {
      type: "object",
      properties: { runAsUser: { type: "integer" }, fsGroup: { type: "integer" } },
      default: {},
    },
    affinity: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
    tolerations: {
      type: "array",
      items: {
        type: "object",
        properties: {
          key: str,
          operator: str,
          value: str,
          effect: str,
          tolerationSeconds: { type: "integer" },
        },
      },
    },
    volumes: {
      type: "array",
      items: {
        type: "object",
        required: ["name"],
        properties: {
          name: str,
          configMap: { type: "object", properties: { name: str, defaultMode: { ...int, default: 420 } } },
          emptyDir: { type: "object", properties: { medium: str, sizeLimit: quantity } },
          secret: { type: "object", properties: { secretName: str, defaultMode: { ...int, default: 420 } } },
        },
      },
    },
  },
};
const deploymentSchema: StructuralSchema = {
  type: "object",
  properties: {
    apiVersion: str,
    kind: str,
    metadata: objectMeta,
    spec: {
      type: "object",
      required: ["selector", "template"],
      properties: {
        replicas: { ...int, minimum: 0, default: 1 },
        selector: labelSelector,
        template: { type: "object", properties: { metadata: objectMeta, spec: podSpec } },
        strategy: {
          type: "object",
          default: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "25%", maxSurge: "25%" } },
          properties: {
            type: { type: "string", enum: ["Recreate", "RollingUpdate"] },
            rollingUpdate: {
              type: "object",
              properties: { maxUnavailable: intOrString, maxSurge: intOrString },
            },
          },
        },
        minReadySeconds: int,
        revisionHistoryLimit: { ...int, default: 10 },
        progressDeadlineSeconds: { ...int, default: 600 },
        paused: bool,
      },
    },
    status: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
  },
};

const deployment = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: {
    name: "web",
    namespace: "shop",
    labels: { app: "web", tier: "frontend" },
    annotations: { owner: "team-a" },
  },
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: "web" } },
    template: {
      metadata: { labels: { app: "web", tier: "frontend" } },
      spec: {
        serviceAccountName: "web",
        containers: [
          {
            name: "web",
            image: "registry.example/web:1.4.2",
            args: ["--port=8080", "--log-level=info"],
            ports: [{ name: "http", containerPort: 8080 }],
            env: [
              { name: "MODE", value: "production" },
              { name: "TOKEN", valueFrom: { secretKeyRef: { name: "web-secret", key: "token" } } },
            ],
            resources: {
              limits: { cpu: "500m", memory: "256Mi" },
              requests: { cpu: "100m", memory: "128Mi" },
            },
            livenessProbe: { httpGet: { path: "/healthz", port: 8080 }, initialDelaySeconds: 5 },
            readinessProbe: { httpGet: { path: "/ready", port: "http" } },
            securityContext: {
              runAsNonRoot: true,
              readOnlyRootFilesystem: true,
              capabilities: { drop: ["ALL"] },
            },
            volumeMounts: [{ name: "config", mountPath: "/etc/web", readOnly: true }],
          },
        ],
        affinity: {
          podAntiAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [
              {
                weight: 100,
                podAffinityTerm: {
                  topologyKey: "example.com/zone",
                  labelSelector: { matchLabels: { app: "web" } },
                },
              },
            ],
          },
        },
        tolerations: [{ key: "dedicated", operator: "Equal", value: "web", effect: "NoSchedule" }],
        volumes: [
          { name: "config", configMap: { name: "web-config" } },
          { name: "tmp", emptyDir: { sizeLimit: "64Mi" } },
        ],
      },
    },
  },
};

function countFields(v: unknown): number {
  if (typeof v !== "object" || v === null) return 1;
  let n = 0;
  for (const x of Array.isArray(v) ? v : Object.values(v)) n += countFields(x);
  return n;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

const compiled = compileSchema(deploymentSchema, { builtin: true });
const rounds = Number(process.argv[2] ?? 41);
const batch = 2000;

function measure(name: string, op: (v: typeof deployment) => unknown): void {
  const samples: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const copies = Array.from({ length: batch }, () => structuredClone(deployment));
    const start = process.hrtime.bigint();
    for (const c of copies) op(c);
    samples.push(Number(process.hrtime.bigint() - start) / batch / 1000);
  }
  console.log(`${name}: median ${median(samples).toFixed(2)} µs/op over ${rounds} rounds of ${batch}`);
}

const probeCopy = structuredClone(deployment);
const unknown = compiled.normalize(probeCopy);
const errors = compiled.validate(probeCopy);
if (unknown.length > 0 || errors.length > 0)
  throw new Error(`fixture is not clean: ${unknown} ${JSON.stringify(errors)}`);
console.log(
  `Deployment with ${countFields(deployment)} leaf values (${countFields(probeCopy)} after defaulting)`,
);

measure("default + validate", (v) => {
  compiled.applyDefaults(v);
  return compiled.validate(v);
});
measure("prune + drop nulls + default + validate", (v) => {
  compiled.normalize(v);
  return compiled.validate(v);
});
measure("validate only", (v) => compiled.validate(v));
