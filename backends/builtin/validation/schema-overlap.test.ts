// The kind rules run next to the catalog's structural schema, which already reports absent
// required fields and values outside an enum. These tests run both on the same objects and check
// that such a mistake is reported once, by the schema, while a present but empty value (which the
// schema accepts) still gets upstream's `Required value` from the kind rules.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { builtinCatalog } from "../../catalog/index.ts";
import { naming } from "../../naming/naming.ts";
import type { FieldError } from "../../registry/field-error.ts";
import { builtinDefaulterFor } from "../defaults/index.ts";
import { catalogTypedSchema } from "../typed.ts";
import { cronJob, deployment, job, pod, service, shape, variant } from "./fixtures.test-support.ts";
import { kindValidators } from "./index.ts";
import type { Json } from "./util.ts";

// biome-ignore lint/suspicious/noExplicitAny: test edits reach deep into plain JSON fixtures.
type Any = any;

const n = naming("cluster");
const catalog = builtinCatalog();
const defaulterFor = builtinDefaulterFor(catalog, n);
const validators = kindValidators(n);

function run(id: string, base: Json, edit: (o: Any) => void): { schema: FieldError[]; kind: FieldError[] } {
  const o = variant(base, edit);
  const schema = catalogTypedSchema(catalog, id, defaulterFor(id));
  return { schema: schema.validate(o), kind: validators[id]!.validate!(o) };
}

const webhooks = (): Json => ({
  metadata: { name: "policy" },
  webhooks: [
    {
      name: "pods.policy.example.com",
      clientConfig: { service: { namespace: "policy", name: "webhook", path: "/validate", port: 443 } },
      rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }],
      sideEffects: "None",
      admissionReviewVersions: ["v1"],
      timeoutSeconds: 5,
    },
  ],
});

const hpa = (): Json => ({
  metadata: { name: "web", namespace: "shop" },
  spec: {
    scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
    minReplicas: 2,
    maxReplicas: 10,
    metrics: [
      {
        type: "Resource",
        resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 70 } },
      },
    ],
  },
});

const ingress = (): Json => ({
  metadata: { name: "web", namespace: "shop" },
  spec: {
    rules: [
      {
        host: "shop.example.com",
        http: {
          paths: [
            { path: "/", pathType: "Prefix", backend: { service: { name: "web", port: { number: 80 } } } },
          ],
        },
      },
    ],
  },
});

const slice = (): Json => ({
  metadata: { name: "web-abc", namespace: "shop" },
  addressType: "IPv4",
  endpoints: [{ addresses: ["10.1.2.3"] }],
  ports: [{ name: "http", port: 8080, protocol: "TCP" }],
});

const podWithFailurePolicy = (): Json =>
  variant(job(), (o: Any) => {
    o.spec.podFailurePolicy = {
      rules: [{ action: "FailJob", onExitCodes: { containerName: "web", operator: "In", values: [42] } }],
    };
  });

type Case = readonly [string, string, () => Json, (o: Any) => void, string];

/** [what, type id, fixture, edit, the field the schema reports]: the kind rules stay silent there. */
const SCHEMA_ONLY: readonly Case[] = [
  [
    "container name absent",
    "apps/v1.Deployment",
    deployment,
    (o) => delete o.spec.template.spec.containers[0].name,
    "spec.template.spec.containers[0].name",
  ],
  ["containers absent", "core/v1.Pod", pod, (o) => delete o.spec.containers, "spec.containers"],
  ["selector absent", "apps/v1.Deployment", deployment, (o) => delete o.spec.selector, "spec.selector"],
  [
    "containerPort absent",
    "apps/v1.Deployment",
    deployment,
    (o) => delete o.spec.template.spec.containers[0].ports[0].containerPort,
    "spec.template.spec.containers[0].ports[0].containerPort",
  ],
  [
    "mountPath absent",
    "core/v1.Pod",
    pod,
    (o) => delete o.spec.containers[0].volumeMounts[0].mountPath,
    "spec.containers[0].volumeMounts[0].mountPath",
  ],
  [
    "env name absent",
    "core/v1.Pod",
    pod,
    (o) => delete o.spec.containers[0].env[0].name,
    "spec.containers[0].env[0].name",
  ],
  ["volume name absent", "core/v1.Pod", pod, (o) => delete o.spec.volumes[1].name, "spec.volumes[1].name"],
  [
    "key path absent",
    "core/v1.Pod",
    pod,
    (o) => delete o.spec.volumes[0].configMap.items[0].path,
    "spec.volumes[0].configMap.items[0].path",
  ],
  [
    "restartPolicy outside the enum",
    "apps/v1.Deployment",
    deployment,
    (o) => (o.spec.template.spec.restartPolicy = "Sometimes"),
    "spec.template.spec.restartPolicy",
  ],
  [
    "job restartPolicy outside the enum",
    "batch/v1.Job",
    job,
    (o) => (o.spec.template.spec.restartPolicy = "Sometimes"),
    "spec.template.spec.restartPolicy",
  ],
  [
    "seccomp type absent",
    "core/v1.Pod",
    pod,
    (o) => (o.spec.securityContext.seccompProfile = {}),
    "spec.securityContext.seccompProfile.type",
  ],
  [
    "node selector operator outside the enum",
    "core/v1.Pod",
    pod,
    (o) =>
      (o.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator =
        "Near"),
    "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator",
  ],
  [
    "affinity topologyKey absent",
    "core/v1.Pod",
    pod,
    (o) =>
      delete o.spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]
        .podAffinityTerm.topologyKey,
    "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologyKey",
  ],
  [
    "spread maxSkew absent",
    "core/v1.Pod",
    pod,
    (o) => delete o.spec.topologySpreadConstraints[0].maxSkew,
    "spec.topologySpreadConstraints[0].maxSkew",
  ],
  [
    "selector operator absent",
    "apps/v1.Deployment",
    deployment,
    (o) => (o.spec.selector = { matchExpressions: [{ key: "app", values: ["web"] }] }),
    "spec.selector.matchExpressions[0].operator",
  ],
  [
    "service port absent",
    "core/v1.Service",
    service,
    (o) => delete o.spec.ports[0].port,
    "spec.ports[0].port",
  ],
  ["schedule absent", "batch/v1.CronJob", cronJob, (o) => delete o.spec.schedule, "spec.schedule"],
  [
    "failure rule action absent",
    "batch/v1.Job",
    podWithFailurePolicy,
    (o) => delete o.spec.podFailurePolicy.rules[0].action,
    "spec.podFailurePolicy.rules[0].action",
  ],
  [
    "exit code operator outside the enum",
    "batch/v1.Job",
    podWithFailurePolicy,
    (o) => (o.spec.podFailurePolicy.rules[0].onExitCodes.operator = "Between"),
    "spec.podFailurePolicy.rules[0].onExitCodes.operator",
  ],
  [
    "pathType absent",
    "networking/v1.Ingress",
    ingress,
    (o) => delete o.spec.rules[0].http.paths[0].pathType,
    "spec.rules[0].http.paths[0].pathType",
  ],
  [
    "backend absent",
    "networking/v1.Ingress",
    ingress,
    (o) => delete o.spec.rules[0].http.paths[0].backend,
    "spec.rules[0].http.paths[0].backend",
  ],
  ["addressType absent", "discovery/v1.EndpointSlice", slice, (o) => delete o.addressType, "addressType"],
  [
    "sideEffects absent",
    "admissionregistration/v1.ValidatingWebhookConfiguration",
    webhooks,
    (o) => delete o.webhooks[0].sideEffects,
    "webhooks[0].sideEffects",
  ],
  [
    "review versions absent",
    "admissionregistration/v1.ValidatingWebhookConfiguration",
    webhooks,
    (o) => delete o.webhooks[0].admissionReviewVersions,
    "webhooks[0].admissionReviewVersions",
  ],
  [
    "hook name absent",
    "admissionregistration/v1.MutatingWebhookConfiguration",
    webhooks,
    (o) => delete o.webhooks[0].name,
    "webhooks[0].name",
  ],
  [
    "service namespace absent",
    "admissionregistration/v1.ValidatingWebhookConfiguration",
    webhooks,
    (o) => delete o.webhooks[0].clientConfig.service.namespace,
    "webhooks[0].clientConfig.service.namespace",
  ],
  [
    "maxReplicas absent",
    "autoscaling/v2.HorizontalPodAutoscaler",
    hpa,
    (o) => delete o.spec.maxReplicas,
    "spec.maxReplicas",
  ],
  [
    "metric target absent",
    "autoscaling/v2.HorizontalPodAutoscaler",
    hpa,
    (o) => delete o.spec.metrics[0].resource.target,
    "spec.metrics[0].resource.target",
  ],
  [
    "eviction policy outside the enum",
    "policy/v1.PodDisruptionBudget",
    () => ({ metadata: { name: "web", namespace: "shop" }, spec: { minAvailable: 1 } }),
    (o) => (o.spec.unhealthyPodEvictionPolicy = "Never"),
    "spec.unhealthyPodEvictionPolicy",
  ],
  [
    "provisioner absent",
    "storage/v1.StorageClass",
    () => ({ metadata: { name: "fast" }, provisioner: "csi.example.com" }),
    (o) => delete o.provisioner,
    "provisioner",
  ],
  [
    "reclaimPolicy outside the enum",
    "storage/v1.StorageClass",
    () => ({ metadata: { name: "fast" }, provisioner: "csi.example.com" }),
    (o) => (o.reclaimPolicy = "Keep"),
    "reclaimPolicy",
  ],
  [
    "handler absent",
    "node/v1.RuntimeClass",
    () => ({ metadata: { name: "gvisor" }, handler: "runsc" }),
    (o) => delete o.handler,
    "handler",
  ],
  [
    "ipBlock cidr absent",
    "networking/v1.NetworkPolicy",
    () => ({
      metadata: { name: "db", namespace: "shop" },
      spec: { podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: "10.0.0.0/8" } }] }] },
    }),
    (o) => delete o.spec.ingress[0].from[0].ipBlock.cidr,
    "spec.ingress[0].from[0].ipBlock.cidr",
  ],
];

/** [what, type id, fixture, edit, field]: a present but empty value, which the schema accepts. */
const KIND_ONLY: readonly Case[] = [
  [
    "container name empty",
    "apps/v1.Deployment",
    deployment,
    (o) => (o.spec.template.spec.containers[0].name = ""),
    "spec.template.spec.containers[0].name",
  ],
  ["containers empty", "core/v1.Pod", pod, (o) => (o.spec.containers = []), "spec.containers"],
  [
    "mountPath empty",
    "core/v1.Pod",
    pod,
    (o) => (o.spec.containers[0].volumeMounts[0].mountPath = ""),
    "spec.containers[0].volumeMounts[0].mountPath",
  ],
  ["schedule empty", "batch/v1.CronJob", cronJob, (o) => (o.spec.schedule = ""), "spec.schedule"],
  [
    "review versions empty",
    "admissionregistration/v1.ValidatingWebhookConfiguration",
    webhooks,
    (o) => (o.webhooks[0].admissionReviewVersions = []),
    "webhooks[0].admissionReviewVersions",
  ],
  [
    "provisioner empty",
    "storage/v1.StorageClass",
    () => ({ metadata: { name: "fast" }, provisioner: "csi.example.com" }),
    (o) => (o.provisioner = ""),
    "provisioner",
  ],
];

describe("schema and kind rules report a mistake once", () => {
  for (const [what, id, base, edit, path] of SCHEMA_ONLY) {
    it(`${what}: the schema's`, () => {
      const { schema, kind } = run(id, base(), edit);
      assert.ok(
        schema.some((e) => e.field === path),
        `schema reports ${path}: ${JSON.stringify(shape(schema))}`,
      );
      assert.deepEqual(
        shape(kind.filter((e) => e.field === path)),
        [],
        `kind rules repeat ${path}: ${JSON.stringify(shape(kind))}`,
      );
    });
  }
  for (const [what, id, base, edit, path] of KIND_ONLY) {
    it(`${what}: the kind rules'`, () => {
      const { schema, kind } = run(id, base(), edit);
      assert.deepEqual(shape(schema.filter((e) => e.field === path)), []);
      assert.ok(
        kind.some((e) => e.field === path && e.type === "FieldValueRequired"),
        `kind rules report ${path}: ${JSON.stringify(shape(kind))}`,
      );
    });
  }

  it("the realistic fixtures pass both", () => {
    for (const [id, base] of [
      ["apps/v1.Deployment", deployment],
      ["core/v1.Pod", pod],
      ["core/v1.Service", service],
      ["batch/v1.CronJob", cronJob],
      ["batch/v1.Job", job],
      ["networking/v1.Ingress", ingress],
      ["discovery/v1.EndpointSlice", slice],
      ["admissionregistration/v1.ValidatingWebhookConfiguration", webhooks],
      ["autoscaling/v2.HorizontalPodAutoscaler", hpa],
    ] as const) {
      const { schema, kind } = run(id, base(), () => {});
      assert.deepEqual([...shape(schema), ...shape(kind)], [], id);
    }
  });
});
