// The type system's cost per request, in-process: what a realistic Deployment's body goes through
// on create (Go-style type check, pruning, defaulting, schema validation, the kind's own rules),
// and what CEL rules add to a custom resource's validation. The baseline is JSON.parse of the
// same body, measured in the same run. Medians of several rounds.
// Run: node test/bench/types.ts [--quick]
import { builtinKinds } from "../../backends/builtin/index.ts";
import { customResourceKind } from "../../backends/crd/index.ts";
import { naming } from "../../backends/naming/index.ts";
import type { JsonObject, Strategy } from "../../backends/registry/index.ts";

const quick = process.argv.includes("--quick");
const ROUNDS = quick ? 3 : 7;
const CALLS = quick ? 2_000 : 10_000;
const n = naming("kubernetes");

const deployment = JSON.stringify({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web", namespace: "default", labels: { app: "web", tier: "frontend" } },
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: "web" } },
    template: {
      metadata: { labels: { app: "web", tier: "frontend" }, annotations: { "example.com/rev": "7" } },
      spec: {
        securityContext: { runAsNonRoot: true, runAsUser: 1000, fsGroup: 2000 },
        affinity: {
          podAntiAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [
              {
                weight: 100,
                podAffinityTerm: {
                  labelSelector: { matchLabels: { app: "web" } },
                  topologyKey: "topology.example.com/zone",
                },
              },
            ],
          },
        },
        tolerations: [{ key: "dedicated", operator: "Equal", value: "web", effect: "NoSchedule" }],
        initContainers: [{ name: "migrate", image: "registry.example.com/web:1.4.2", command: ["/migrate"] }],
        containers: [
          {
            name: "web",
            image: "registry.example.com/web:1.4.2",
            args: ["--port=8080", "--log-level=info"],
            ports: [
              { containerPort: 8080, name: "http" },
              { containerPort: 9090, name: "metrics" },
            ],
            env: [
              { name: "MODE", value: "production" },
              { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
              { name: "DB_PASSWORD", valueFrom: { secretKeyRef: { name: "db", key: "password" } } },
            ],
            resources: { requests: { cpu: "250m", memory: "256Mi" }, limits: { cpu: "1", memory: "512Mi" } },
            readinessProbe: { httpGet: { path: "/ready", port: "http" }, initialDelaySeconds: 5 },
            livenessProbe: { httpGet: { path: "/live", port: "http" }, periodSeconds: 20 },
            securityContext: {
              allowPrivilegeEscalation: false,
              readOnlyRootFilesystem: true,
              capabilities: { drop: ["ALL"] },
            },
            volumeMounts: [
              { name: "cache", mountPath: "/cache" },
              { name: "config", mountPath: "/etc/web", readOnly: true },
            ],
          },
          {
            name: "proxy",
            image: "envoyproxy/envoy:v1.27.0",
            ports: [{ containerPort: 8443, name: "https" }],
          },
        ],
        volumes: [
          { name: "cache", emptyDir: { sizeLimit: "1Gi" } },
          { name: "config", configMap: { name: "web-config" } },
        ],
      },
    },
  },
});

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

/** Median over rounds of the mean time per call, in µs. */
function measure(body: string, run: (object: JsonObject) => void): number {
  const rounds: number[] = [];
  // The first round warms the code up and is not counted.
  for (let r = -1; r < ROUNDS; r++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < CALLS; i++) run(JSON.parse(body) as JsonObject);
    if (r >= 0) rounds.push(Number(process.hrtime.bigint() - start) / 1000 / CALLS);
  }
  return median(rounds);
}

function createPath(strategy: Strategy): (object: JsonObject) => void {
  const typed = strategy.typed;
  if (!typed) throw new Error("the kind has no typed schema");
  return (object) => {
    if (typed.decodeError(object)) throw new Error("decode error");
    typed.prune(object);
    typed.default(object);
    const errors = [...typed.validate(object), ...(strategy.validate?.(object) ?? [])];
    if (errors.length > 0) throw new Error(JSON.stringify(errors));
  };
}

const kind = builtinKinds(n).find((k) => k.schema.group === "apps" && k.schema.plural === "deployments");
if (!kind) throw new Error("no deployments");
const parse = measure(deployment, () => {});
const full = measure(deployment, createPath(kind.strategy));

// A custom resource with and without three typical rules (one over a list with all()).
const crd = (rules: boolean): JsonObject => ({
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "crontabs.example.com" },
  spec: {
    group: "example.com",
    scope: "Namespaced",
    names: { plural: "crontabs", singular: "crontab", kind: "CronTab", listKind: "CronTabList" },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: {
                type: "object",
                ...(rules
                  ? {
                      "x-kubernetes-validations": [
                        { rule: "self.replicas <= self.maxReplicas", message: "too many replicas" },
                        { rule: "self.tags.all(t, t.size() <= 20)" },
                        { rule: "self.cronSpec.matches('^[0-9*/ ,-]+$')" },
                      ],
                    }
                  : {}),
                properties: {
                  cronSpec: { type: "string", maxLength: 64 },
                  image: { type: "string" },
                  replicas: { type: "integer", default: 1 },
                  maxReplicas: { type: "integer", default: 5 },
                  tags: { type: "array", maxItems: 16, items: { type: "string", maxLength: 32 } },
                },
              },
            },
          },
        },
      },
    ],
  },
  status: {
    acceptedNames: { plural: "crontabs", singular: "crontab", kind: "CronTab", listKind: "CronTabList" },
  },
});
const cr = JSON.stringify({
  apiVersion: "example.com/v1",
  kind: "CronTab",
  metadata: { name: "nightly", namespace: "default" },
  spec: { cronSpec: "*/5 * * * *", image: "busybox", replicas: 2, tags: ["a", "b", "c", "nightly"] },
});
const parseCr = measure(cr, () => {});
const plain = measure(cr, createPath(customResourceKind(n, crd(false)).strategy));
const withRules = measure(cr, createPath(customResourceKind(n, crd(true)).strategy));

const fmt = (us: number) => `${us.toFixed(1)} µs`;
console.log(`types: medians of ${ROUNDS} rounds of ${CALLS} calls`);
console.log(`| figure | result | baseline (JSON.parse of the body) | ratio | target |`);
console.log(`|---|---|---|---|---|`);
console.log(
  `| Deployment: type check, prune, default, validate | ${fmt(full - parse)} | ${fmt(parse)} | ${((full - parse) / parse).toFixed(1)}x | ≤ 50 µs |`,
);
console.log(
  `| custom resource, schema only / with 3 CEL rules | ${fmt(plain - parseCr)} / ${fmt(withRules - parseCr)} | ${fmt(parseCr)} | rules add ${fmt(withRules - plain)} | |`,
);
