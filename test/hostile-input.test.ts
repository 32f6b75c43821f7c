// A careless or hostile client against the real server: malformed and lying bodies, wrong types,
// bad query parameters, media types and paths, for built-in kinds and a custom resource, every
// write verb. Whatever the server thinks of a request, it answers it: a 2xx, or a 4xx whose body
// is a Status naming the same code; never a 5xx (504 only where upstream uses it, for a
// resourceVersion from the future), never a reset or a hang; and it stays ready throughout.
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import { ApiClient, type ApiResponse } from "./support/api-client.ts";
import { createServedCrd } from "./support/custom-resources.ts";
import { type GatewayProcess, startGateway } from "./support/gateway-process.ts";

let gw: GatewayProcess;
let api: ApiClient;
let crdGroup: string;

interface Case {
  readonly category: string;
  readonly method: string;
  readonly path: string;
  readonly raw?: string | Buffer;
  readonly contentType?: string;
  readonly accept?: string;
  /** Codes this case may answer besides 2xx and 4xx (a future resourceVersion may time out). */
  readonly alsoAllowed?: readonly number[];
}

const CM = "/api/v1/namespaces/default/configmaps";
const MERGE = "application/merge-patch+json";
const JSON_PATCH = "application/json-patch+json";
const SMP = "application/strategic-merge-patch+json";
const APPLY = "application/apply-patch+yaml";

function configMap(extra: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}) {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "keep", ...metadata },
    data: { a: "1" },
    ...extra,
  };
}

/** Text bodies that are not JSON, or not the JSON an object is. */
const SYNTAX = [
  "",
  "{",
  "}",
  "[",
  "nul",
  '{"a":}',
  '{"a" 1}',
  "{}x",
  "\ufeff{}",
  '{"metadata":{"name":"a\\ud800"}}',
  '{"metadata":{"name":"\\u0000"}}',
  `{"data":{"a":"${"\\".repeat(3)}"}}`,
  "[]",
  '"text"',
  "1",
  "null",
  "true",
  '{"apiVersion":1}',
  '{"kind":[]}',
  '{"apiVersion":"v2","kind":"ConfigMap","metadata":{"name":"keep"}}',
  '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"keep"}}',
  '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"keep"},"data":{"a":1e400}}',
  '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"keep"},"data":{"a":"1"},"data":{"b":"2"}}',
];

const WRONG_VALUES: readonly unknown[] = [1, -1, 1.5, "x", "", [], {}, true, null, ["a"], { a: 1 }];
const METADATA_FIELDS = [
  "name",
  "generateName",
  "namespace",
  "labels",
  "annotations",
  "finalizers",
  "ownerReferences",
  "uid",
  "resourceVersion",
  "creationTimestamp",
  "deletionTimestamp",
  "generation",
  "deletionGracePeriodSeconds",
  "managedFields",
  "selfLink",
];
const NAMES = ["", "A", "a".repeat(254), "a/b", "..", "a b", "名前", "a\u0000b", "%2F", "-a", "a-"];

function bodyCases(path: string, method: string, contentType = "application/json"): Case[] {
  const out: Case[] = [];
  for (const raw of SYNTAX) out.push({ category: "syntax", method, path, raw, contentType });
  out.push({
    category: "syntax",
    method,
    path,
    raw: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
    contentType,
  });
  for (const field of METADATA_FIELDS) {
    for (const value of WRONG_VALUES) {
      out.push({
        category: "metadata types",
        method,
        path,
        raw: JSON.stringify(configMap({}, { [field]: value })),
        contentType,
      });
    }
  }
  for (const value of WRONG_VALUES)
    out.push({
      category: "metadata types",
      method,
      path,
      raw: JSON.stringify({ ...configMap(), metadata: value }),
    });
  for (const name of NAMES)
    out.push({ category: "names", method, path, raw: JSON.stringify(configMap({}, { name })), contentType });
  for (const labels of [{ "a/b/c": "x" }, { a: "v".repeat(64) }, { "": "x" }, { a: "bad value!" }, { a: 1 }])
    out.push({
      category: "labels",
      method,
      path,
      raw: JSON.stringify(configMap({}, { labels })),
      contentType,
    });
  for (const extra of [
    { data: [] },
    { data: { a: 1 } },
    { data: { "a/b": "x" } },
    { binaryData: { a: "not base64!" } },
    { data: { a: "x" }, binaryData: { a: "eA==" } },
    { immutable: "yes" },
    { 名前: 1, "\u0007bell": 2, "\ufffd": 3, Ωμέγα: 4, ключ: 5, "🔑": 6 },
  ])
    out.push({ category: "fields", method, path, raw: JSON.stringify(configMap(extra)), contentType });
  return out;
}

function patchCases(path: string): Case[] {
  const out: Case[] = [];
  const jsonPatches: unknown[] = [
    {},
    [{}],
    [{ op: "nope", path: "/data/a" }],
    [{ op: "add", path: "data/a", value: "x" }],
    [{ op: "add", path: "/data/~2", value: "x" }],
    [{ op: "move", from: "/data/missing", path: "/data/b" }],
    [{ op: "test", path: "/data/a", value: "other" }],
    [{ op: "add", path: "/metadata/finalizers/999", value: "x" }],
    [{ op: "add", path: "/metadata/finalizers/1e9", value: "x" }],
    [{ op: "replace", path: "/metadata", value: 1 }],
    [{ op: "replace", path: "/metadata/name", value: "other" }],
    [{ op: "replace", path: "/metadata/namespace", value: "other" }],
    [{ op: "remove", path: "" }],
    [{ op: "copy", from: "/data", path: "/data/a/b" }],
    [{ op: "add", path: "/data/b" }],
  ];
  for (const p of jsonPatches)
    out.push({
      category: "json patch",
      method: "PATCH",
      path,
      raw: JSON.stringify(p),
      contentType: JSON_PATCH,
    });
  const mergePatches: string[] = [
    "[]",
    "1",
    "null",
    '"x"',
    '{"metadata":1}',
    '{"metadata":{"name":"other"}}',
    '{"metadata":{"namespace":"other"}}',
    '{"metadata":{"resourceVersion":"1"}}',
    '{"data":{"a":1}}',
    '{"kind":"Pod"}',
    '{"apiVersion":"v9"}',
    "{",
  ];
  for (const raw of mergePatches) {
    out.push({ category: "merge patch", method: "PATCH", path, raw, contentType: MERGE });
    out.push({ category: "strategic merge patch", method: "PATCH", path, raw, contentType: SMP });
  }
  for (const raw of [
    '{"$patch":"bogus"}',
    '{"metadata":{"$patch":"delete"}}',
    '{"metadata":{"finalizers":[{"$patch":"replace"}]}}',
    '{"$setElementOrder/metadata":1}',
    '{"metadata":{"$setElementOrder/finalizers":{"a":1}}}',
    '{"metadata":{"$deleteFromPrimitiveList/finalizers":"x"}}',
    '{"$retainKeys":1}',
    '{"data":{"$patch":"replace","a":"2"}}',
  ])
    out.push({ category: "strategic merge patch", method: "PATCH", path, raw, contentType: SMP });
  const applyPath = `${path}?fieldManager=hostile`;
  for (const raw of [
    "",
    ":",
    "- a",
    "a: [",
    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: keep, managedFields: [{}]}",
    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: other}",
    "apiVersion: v1\nkind: Pod\nmetadata: {name: keep}",
    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: keep, namespace: other}",
    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: keep}\ndata: {a: [1]}",
    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: keep}\ndata: !!binary aGVsbG8=",
    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: keep}\ndata: {a: &x b, c: *x}",
    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: keep}\ndata: {? [a]: b}",
    "a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\nh: [*g,*g,*g,*g,*g,*g,*g,*g,*g]",
  ])
    out.push({ category: "apply", method: "PATCH", path: applyPath, raw, contentType: APPLY });
  out.push({
    category: "apply",
    method: "PATCH",
    path,
    raw: "apiVersion: v1\nkind: ConfigMap",
    contentType: APPLY,
  });
  out.push({
    category: "apply",
    method: "PATCH",
    path: `${applyPath}&force=maybe`,
    raw: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: keep}",
    contentType: APPLY,
  });
  return out;
}

function queryCases(): Case[] {
  const list = [
    "limit=-1",
    "limit=abc",
    "limit=1e3",
    "limit=99999999999999999999",
    "continue=garbage",
    `continue=${Buffer.from('{"v":"meta.k8s.io/v1","rv":-5,"start":"x"}').toString("base64")}`,
    "continue=abc&limit=1&resourceVersion=5",
    "resourceVersion=abc",
    "resourceVersion=-1",
    "resourceVersionMatch=Bogus&resourceVersion=1",
    "resourceVersionMatch=Exact",
    "resourceVersionMatch=Exact&resourceVersion=0",
    "fieldSelector=a",
    "fieldSelector==",
    "fieldSelector=spec.x%3D1",
    "fieldSelector=metadata.name%3D%3D%3D",
    "labelSelector=a%20in%20(",
    "labelSelector=!",
    "labelSelector=a%3Db%3Dc",
    `labelSelector=${"a".repeat(70)}%3Db`,
    "labelSelector=a%20notin%20()",
    "timeoutSeconds=abc",
    "watch=xyz&timeoutSeconds=abc",
    "watch=1&allowWatchBookmarks=maybe&timeoutSeconds=1",
    "watch=1&sendInitialEvents=true&timeoutSeconds=1",
    "watch=1&resourceVersion=abc&timeoutSeconds=1",
    "watch=1&resourceVersion=1&timeoutSeconds=1",
    "pretty=x",
    "as=Table",
  ];
  const out: Case[] = list.map((q) => ({ category: "list query", method: "GET", path: `${CM}?${q}` }));
  out.push({
    category: "list query",
    method: "GET",
    path: `${CM}?resourceVersion=999999999&resourceVersionMatch=NotOlderThan`,
    alsoAllowed: [504],
  });
  for (const q of [
    "dryRun=Some",
    "fieldValidation=Loud",
    `fieldManager=${"m".repeat(200)}`,
    "fieldManager=%00",
    "dryRun=All&dryRun=Some",
  ])
    out.push({
      category: "write query",
      method: "POST",
      path: `${CM}?${q}`,
      raw: JSON.stringify(configMap({}, { name: "q" })),
    });
  for (const q of [
    "propagationPolicy=Bogus",
    "gracePeriodSeconds=1.5",
    "gracePeriodSeconds=abc",
    "orphanDependents=maybe",
    "dryRun=Some",
  ])
    out.push({ category: "delete query", method: "DELETE", path: `${CM}/keep?${q}` });
  for (const raw of [
    "{",
    "[]",
    '{"propagationPolicy":1}',
    '{"preconditions":{"uid":1}}',
    '{"preconditions":{"resourceVersion":"1"}}',
    '{"gracePeriodSeconds":"x"}',
    '{"kind":"Pod"}',
    '{"dryRun":"All"}',
    '{"orphanDependents":true,"propagationPolicy":"Foreground"}',
  ])
    out.push({
      category: "delete body",
      method: "DELETE",
      path: `${CM}/keep`,
      raw,
      contentType: "application/json",
    });
  return out;
}

function mediaCases(): Case[] {
  const body = JSON.stringify(configMap({}, { name: "media" }));
  const out: Case[] = [];
  for (const contentType of [
    "garbage",
    "application/json; charset=latin1",
    "text/plain",
    "application/vnd.kubernetes.protobuf",
    "application/yaml",
    "multipart/form-data; boundary=x",
    "application/json;;;",
  ])
    out.push({ category: "content type", method: "POST", path: CM, raw: body, contentType });
  for (const accept of [
    "garbage",
    "application/json;as=Table;v=v9;g=x",
    "application/json;as=Table;v=v1;g=meta.k8s.io",
    "*/*;q=abc",
    "application/xml",
    "application/json;as=PartialObjectMetadataList;v=v1;g=nope",
    "application/vnd.kubernetes.protobuf;stream=watch",
  ])
    out.push({ category: "accept", method: "GET", path: `${CM}/keep`, accept });
  return out;
}

function pathCases(): Case[] {
  return [
    "/api/v1/namespaces/default/configmaps/%00",
    "/api/v1/namespaces/%2e%2e/configmaps",
    "/api/v1/namespaces/default/configmaps/a%zz",
    `/api/v1/namespaces/default/configmaps/${"a".repeat(8000)}`,
    "/api//v1/namespaces",
    "/apis/../api/v1/namespaces",
    "/api/v1/watch",
    "/apis/apps/v1/proxy/",
    "/api/v1/namespaces/default/configmaps/keep/nope",
    "/api/v1/namespaces/default/nope",
    "/apis/nope.example.com/v1/things",
    "/api/v9/namespaces",
    "/api/v1/namespaces/default/pods/x/exec",
  ].map((path) => ({ category: "paths", method: "GET", path }));
}

const POD = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "typed", labels: { app: "x" } },
  spec: {
    containers: [
      {
        name: "c",
        image: "busybox",
        ports: [{ containerPort: 80, protocol: "TCP" }],
        resources: { limits: { cpu: "1", memory: "1Gi" } },
        env: [{ name: "A", value: "b" }],
      },
    ],
    restartPolicy: "Always",
    terminationGracePeriodSeconds: 30,
    tolerations: [{ key: "k", operator: "Exists", effect: "NoSchedule" }],
  },
};
const DEPLOYMENT = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "typed" },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: "x" } },
    strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: 1 } },
    template: { metadata: { labels: { app: "x" } }, spec: POD.spec },
  },
};

const MANY_WRONG: readonly unknown[] = [1, 1.5, -1, "x", [], {}, null, true, 2 ** 53 + 2];
const FEW_WRONG: readonly unknown[] = [1, "x", [], {}, null];

/** Each leaf (and each object or list) of `object`, replaced in turn by each wrong value. */
function typeConfusion(
  category: string,
  path: string,
  object: unknown,
  wrong: readonly unknown[] = MANY_WRONG,
  method = "POST",
): Case[] {
  const out: Case[] = [];
  const visit = (node: unknown, at: (string | number)[]) => {
    if (at.length > 0 && at[0] !== "apiVersion" && at[0] !== "kind") {
      for (const value of wrong)
        out.push({ category, method, path, raw: JSON.stringify(replaced(object, at, value)) });
    }
    if (Array.isArray(node)) {
      for (const [i, v] of node.entries()) visit(v, [...at, i]);
    } else if (typeof node === "object" && node !== null)
      for (const [k, v] of Object.entries(node)) visit(v, [...at, k]);
  };
  visit(object, []);
  return out;
}

function replaced(object: unknown, at: readonly (string | number)[], value: unknown): unknown {
  const copy = structuredClone(object) as Record<string | number, unknown>;
  let node = copy;
  for (const key of at.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[at[at.length - 1] as string | number] = value;
  return copy;
}

const RBAC = "rbac.authorization.k8s.io/v1";
/** Kinds with rules of their own (allocation, escalation, webhooks, reviews, subresources). */
const MORE_KINDS: readonly [string, string, unknown, string?][] = [
  [
    "service",
    "/api/v1/namespaces/default/services",
    {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "typed" },
      spec: {
        type: "NodePort",
        selector: { app: "x" },
        ports: [{ port: 80, targetPort: "http", nodePort: 30080, protocol: "TCP" }],
        externalTrafficPolicy: "Local",
        sessionAffinity: "ClientIP",
      },
    },
  ],
  [
    "custom resource definition",
    "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
    {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "typed.hostile.example.com" },
      spec: {
        group: "hostile.example.com",
        scope: "Namespaced",
        names: { plural: "typed", kind: "Typed" },
        versions: [
          {
            name: "v1",
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: "object",
                properties: {
                  spec: { type: "object", properties: { n: { type: "integer", enum: [1, 2] } } },
                },
                "x-kubernetes-validations": [{ rule: "self.spec.n > 0", message: "n" }],
              },
            },
            additionalPrinterColumns: [{ name: "N", type: "integer", jsonPath: ".spec.n" }],
          },
        ],
      },
    },
  ],
  [
    "webhook configuration",
    "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingWebhookConfiguration",
      metadata: { name: "typed" },
      webhooks: [
        {
          name: "typed.example.com",
          clientConfig: { url: "https://127.0.0.1:1/x" },
          rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["secrets"] }],
          sideEffects: "None",
          admissionReviewVersions: ["v1"],
          failurePolicy: "Ignore",
          timeoutSeconds: 1,
          objectSelector: { matchLabels: { never: "matches" } },
        },
      ],
    },
  ],
  [
    "role",
    "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles",
    {
      apiVersion: RBAC,
      kind: "Role",
      metadata: { name: "typed" },
      rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get"], resourceNames: ["a"] }],
    },
  ],
  [
    "access review",
    "/apis/authorization.k8s.io/v1/subjectaccessreviews",
    {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SubjectAccessReview",
      spec: {
        user: "u",
        groups: ["g"],
        extra: { e: ["v"] },
        resourceAttributes: { verb: "get", resource: "pods", namespace: "default" },
      },
    },
  ],
  [
    "horizontal pod autoscaler",
    "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers",
    {
      apiVersion: "autoscaling/v2",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "typed" },
      spec: {
        scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "typed" },
        minReplicas: 1,
        maxReplicas: 3,
        metrics: [
          {
            type: "Resource",
            resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } },
          },
        ],
      },
    },
  ],
  [
    "cron job",
    "/apis/batch/v1/namespaces/default/cronjobs",
    {
      apiVersion: "batch/v1",
      kind: "CronJob",
      metadata: { name: "typed" },
      spec: {
        schedule: "*/5 * * * *",
        jobTemplate: {
          spec: { template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "i" }] } } },
        },
      },
    },
  ],
  [
    "resource quota",
    "/api/v1/namespaces/default/resourcequotas",
    {
      apiVersion: "v1",
      kind: "ResourceQuota",
      metadata: { name: "typed" },
      spec: { hard: { pods: "100", "requests.cpu": "50" } },
    },
  ],
  [
    "eviction",
    "/api/v1/namespaces/default/pods/typed/eviction",
    {
      apiVersion: "policy/v1",
      kind: "Eviction",
      metadata: { name: "typed" },
      deleteOptions: { gracePeriodSeconds: 0 },
    },
  ],
  [
    "scale",
    "/apis/apps/v1/namespaces/default/deployments/typed/scale",
    { apiVersion: "autoscaling/v1", kind: "Scale", metadata: { name: "typed" }, spec: { replicas: 3 } },
    "PUT",
  ],
];

function customResourceCases(): Case[] {
  const path = `/apis/${crdGroup}/v1/namespaces/default/gizmos`;
  const base = { apiVersion: `${crdGroup}/v1`, kind: "Gizmo", metadata: { name: "g1" } };
  const specs: unknown[] = [
    1,
    [],
    { size: "big" },
    { size: 1.5 },
    { size: 1e300 },
    { color: "purple" },
    { color: 1 },
    { tags: "x" },
    { tags: [1, 2] },
    { tags: Array.from({ length: 300 }, (_, i) => `t${i}`) },
    { free: { a: { b: { c: [1, { d: null }] } } } },
    { 名前: "x" },
  ];
  const out: Case[] = specs.map((spec) => ({
    category: "custom resource",
    method: "POST",
    path,
    raw: JSON.stringify({ ...base, spec }),
  }));
  out.push({
    category: "custom resource",
    method: "PATCH",
    path: `${path}/g0`,
    raw: '{"$patch":"x"}',
    contentType: SMP,
  });
  out.push({
    category: "custom resource",
    method: "POST",
    path,
    raw: JSON.stringify({ ...base, kind: "Other" }),
  });
  out.push({
    category: "custom resource",
    method: "POST",
    path,
    raw: JSON.stringify({ ...base, metadata: { name: 5 } }),
  });
  return out;
}

before(async () => {
  gw = await startGateway(["--api-naming=kubernetes"]);
  api = new ApiClient(gw.kubeconfig);
  const made = await api.call("POST", CM, { body: configMap() });
  assert.equal(made.status, 201, made.text);
  crdGroup = "hostile.example.com";
  await createServedCrd(api, {
    apiextensions: "apiextensions.k8s.io",
    group: crdGroup,
    kind: "Gizmo",
    schema: {
      type: "object",
      properties: {
        spec: {
          type: "object",
          properties: {
            size: { type: "integer", maximum: 10 },
            color: { type: "string", enum: ["red", "green"] },
            tags: { type: "array", maxItems: 100, items: { type: "string" } },
            free: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
          },
        },
      },
    },
  });
  const g0 = await api.call("POST", `/apis/${crdGroup}/v1/namespaces/default/gizmos`, {
    body: { apiVersion: `${crdGroup}/v1`, kind: "Gizmo", metadata: { name: "g0" }, spec: { size: 1 } },
  });
  assert.equal(g0.status, 201, g0.text);
});

after(async () => {
  await api?.close();
  await gw?.stop();
  if (gw) await rm(gw.dataDir, { recursive: true, force: true });
});

describe("hostile and careless input", () => {
  it("every request gets a 2xx or a 4xx Status, and the server stays ready", async (t) => {
    const cases: Case[] = [
      ...bodyCases(CM, "POST"),
      ...bodyCases(`${CM}/keep`, "PUT"),
      ...bodyCases(`${CM}/keep`, "POST", "application/yaml").filter((c) => c.category === "syntax"),
      ...patchCases(`${CM}/keep`),
      ...queryCases(),
      ...mediaCases(),
      ...pathCases(),
      ...customResourceCases(),
      ...typeConfusion("pod fields", "/api/v1/namespaces/default/pods", POD),
      ...typeConfusion("deployment fields", "/apis/apps/v1/namespaces/default/deployments", DEPLOYMENT),
      ...MORE_KINDS.flatMap(([category, path, object, method]) =>
        typeConfusion(`${category} fields`, path, object, FEW_WRONG, method),
      ),
    ];
    const failures: string[] = [];
    const byCategory = new Map<string, number>();
    for (const c of cases) {
      byCategory.set(c.category, (byCategory.get(c.category) ?? 0) + 1);
      let r: ApiResponse;
      try {
        r = await api.call(c.method, c.path, {
          ...(c.raw !== undefined ? { raw: c.raw, contentType: c.contentType ?? "application/json" } : {}),
          ...(c.accept ? { accept: c.accept } : {}),
        });
      } catch (err) {
        failures.push(
          `${c.category}: ${c.method} ${c.path.slice(0, 120)}: no answer (${(err as Error).message})`,
        );
        continue;
      }
      const allowed =
        r.status < 300 || (r.status >= 400 && r.status < 500) || c.alsoAllowed?.includes(r.status);
      const isStatus = r.status < 400 || (r.body?.kind === "Status" && r.body?.code === r.status);
      if (!allowed || !isStatus) {
        const sent = typeof c.raw === "string" ? c.raw.slice(0, 160) : c.raw ? "<bytes>" : "";
        failures.push(
          `${c.category}: ${c.method} ${c.path.slice(0, 120)} ${sent} -> ${r.status} ${r.text.slice(0, 200)}`,
        );
      }
    }
    t.diagnostic(`${cases.length} requests: ${[...byCategory].map(([k, n]) => `${k} ${n}`).join(", ")}`);
    assert.deepEqual(failures, []);
    const ready = await api.call("GET", "/readyz");
    assert.equal(ready.status, 200, ready.text);
    const kept = await api.call("GET", `${CM}/keep`);
    assert.equal(kept.status, 200, kept.text);
  });
});
