// The descriptors generated from the built-in catalog: one per catalog type and served kind, with
// the Go facts the JSON form depends on; a generated full sample of every kind round-trips through
// our codec and through protobufjs reading upstream's IDL; and bodies written by protobufjs from
// the IDL the way Go's marshallers write them (value fields' zeros included) read back as the JSON
// a Go client would have sent. descriptors.test.ts checks every message against the IDL.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import protobuf from "protobufjs";
import { CATALOG_KINDS } from "../../backends/builtin/catalog-kinds.ts";
import { builtinCatalog, packageGroup } from "../../backends/catalog/index.ts";
import { naming } from "../../backends/naming/index.ts";
import { catalogDescriptors } from "./catalog-descriptors.ts";
import {
  decodeProtobuf,
  decodeProtobufObject,
  encodeProtobufMessage,
  encodeProtobufObject,
  hasProtobufForm,
  PROTOBUF_MAGIC,
} from "./codec.ts";
import {
  type FieldDescriptor,
  type KindDescriptor,
  MESSAGES,
  type MessageDescriptor,
  messageDescriptor,
} from "./descriptors.ts";
import { loadIdl, skipWithoutIdl } from "./upstream-idl.ts";

type Json = Record<string, unknown>;

const generated = catalogDescriptors();
const k8s = naming("kubernetes");

/** The apiVersion of a kind under the kubernetes naming preset. */
function apiVersionOf(k: KindDescriptor): string {
  if (k.group === "") return k.version;
  return `${k.bare ? k.group : k8s.group(k.group)}/${k.version}`;
}

function fieldOf(message: string, name: string): FieldDescriptor {
  const found = messageDescriptor(message).fields.find((f) => f.name === name);
  assert.ok(found, `${message}.${name}`);
  return found;
}

/** A body around raw message bytes. */
function envelope(apiVersion: string, kind: string, raw: Uint8Array): Uint8Array {
  const w = protobuf.Writer.create();
  w.uint32(0x0a).fork().uint32(0x0a).string(apiVersion).uint32(0x12).string(kind).ldelim();
  w.uint32(0x12).bytes(raw);
  return Buffer.concat([PROTOBUF_MAGIC, w.finish()]);
}

describe("descriptors generated from the catalog", () => {
  it("every catalog type is a message named as upstream's, and the registry holds the generated one", () => {
    const names = generated.messages.map((m) => m.name);
    assert.equal(new Set(names).size, names.length, "a message generated twice");
    for (const type of builtinCatalog().types()) {
      const name = `${type.protoPackage}.${type.name}`;
      const ours = generated.messages.find((m) => m.name === name);
      assert.ok(ours, `${type.id} has no message`);
      assert.deepEqual(MESSAGES.get(name), ours, `${name} is registered from another source`);
    }
    assert.ok(MESSAGES.has("k8s.io.api.apps.v1.Deployment"));
    assert.ok(MESSAGES.has("k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool"));
  });

  it("every served kind and its list has a Protobuf form under both presets' group names", () => {
    const served: [string, string, boolean][] = [
      ...CATALOG_KINDS.flatMap((e) =>
        [e.pkg, ...(e.otherVersions ?? []).map((v) => v.pkg)].map((pkg): [string, string, boolean] => [
          pkg,
          e.kind,
          true,
        ]),
      ),
      ...["Namespace", "ConfigMap", "Secret", "ServiceAccount", "Event", "Pod", "Node"].map(
        (kind): [string, string, boolean] => ["core/v1", kind, true],
      ),
      ["events/v1", "Event", true],
      ...["Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"].map(
        (kind): [string, string, boolean] => ["rbac/v1", kind, true],
      ),
      ["core/v1", "Binding", false],
      ["policy/v1", "Eviction", false],
      ["autoscaling/v1", "Scale", false],
    ];
    for (const n of [naming("cluster"), k8s]) {
      for (const [pkg, kind, withList] of served) {
        const { prefix, domain, version } = packageGroup(pkg);
        const group = prefix === "" ? "" : domain ? n.group(prefix) : prefix;
        const apiVersion = group ? `${group}/${version}` : version;
        assert.ok(hasProtobufForm(apiVersion, kind), `${apiVersion} ${kind}`);
        assert.equal(hasProtobufForm(apiVersion, `${kind}List`), withList, `${apiVersion} ${kind}List`);
      }
    }
    // Groups without a domain are never suffixed, and domain groups always are.
    assert.equal(hasProtobufForm("apps.k8s.io/v1", "Deployment"), false);
    assert.equal(hasProtobufForm("networking/v1", "Ingress"), false);
    assert.equal(hasProtobufForm("flowcontrol.apiserver.k8s.io/v1beta2", "FlowSchema"), true);
    assert.equal(hasProtobufForm("autoscaling/v2", "HorizontalPodAutoscaler"), true);
    assert.equal(hasProtobufForm("autoscaling/v1", "HorizontalPodAutoscaler"), true);
    // A catalog type that is no served kind.
    assert.equal(hasProtobufForm("v1", "PodTemplateSpec"), false);
    assert.equal(hasProtobufForm("v1", "ComponentStatus"), false);
  });

  it("carries the Go facts: pointers, omitempty, inline structs and []byte", () => {
    const apps = "k8s.io.api.apps.v1";
    const core = "k8s.io.api.core.v1";
    assert.equal(fieldOf(`${apps}.DeploymentSpec`, "replicas").pointer, true);
    assert.equal(fieldOf(`${apps}.DeploymentSpec`, "minReadySeconds").pointer, false);
    assert.equal(fieldOf(`${apps}.DeploymentSpec`, "template").omitEmpty, false);
    assert.equal(fieldOf(`${core}.PodSpec`, "automountServiceAccountToken").pointer, true);
    assert.equal(fieldOf(`${core}.PodSpec`, "containers").omitEmpty, false);
    assert.equal(fieldOf(`${core}.ServicePort`, "port").omitEmpty, false);
    assert.equal(fieldOf(`${core}.ServicePort`, "port").pointer, false);
    assert.equal(fieldOf(`${core}.Probe`, "handler").inline, true);
    assert.equal(fieldOf(`${core}.Volume`, "volumeSource").inline, true);
    assert.equal(fieldOf("k8s.io.api.policy.v1.PodDisruptionBudgetSpec", "minAvailable").pointer, true);
    assert.equal(
      fieldOf("k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta", "creationTimestamp").pointer,
      false,
    );
    assert.equal(
      fieldOf("k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta", "deletionTimestamp").pointer,
      true,
    );
    // []byte: written only when set, like a pointer.
    assert.equal(
      fieldOf("k8s.io.api.certificates.v1.CertificateSigningRequestSpec", "request").pointer,
      true,
    );
  });

  it("facts only where Go allows them: no pointer, inline or null-able scalar on lists and maps", () => {
    for (const m of generated.messages) {
      for (const f of m.fields) {
        const where = `${m.name}.${f.name}`;
        if (f.repeated || f.type.kind === "map") {
          assert.equal(f.pointer, false, where);
          assert.equal(f.inline, undefined, where);
        }
        if (f.inline) {
          assert.equal(f.type.kind, "message", where);
          assert.equal(f.pointer, false, where);
        }
        assert.equal(f.emptyAsArray, m.name.endsWith("List") && f.name === "items", where);
      }
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Full samples: every field set to a value that is not its zero, so that the decoded JSON must be
// exactly the object encoded. Recursive schemas (JSONSchemaProps) stop at two levels.

const UNSET = Symbol("unset");

class SampleBuilder {
  #turn = 0;

  special(d: MessageDescriptor, path: readonly string[]): unknown {
    switch (d.special) {
      case "time":
        return "2024-05-06T07:08:09Z";
      case "microTime":
        return "2024-05-06T07:08:09.123456Z";
      case "fieldsV1":
        return { "f:metadata": { "f:labels": { ".": {} } } };
      case "stringList":
        return ["a", "b"];
      case "quantity":
        return "250m";
      case "intOrString":
        this.#turn++;
        return this.#turn % 2 === 0 ? "25%" : 8080;
      case "rawExtension":
        return { apiVersion: "v1", kind: "ConfigMap", data: { a: "1" } };
      case "json":
        return { x: [1, "y", null, true] };
      case "schemaOrBool":
        return this.#schema(d, path) ?? false;
      case "schemaOrArray": {
        const schema = this.#schema(d, path);
        return schema ? [schema] : UNSET;
      }
      case "schemaOrStringArray":
        return ["a", "b"];
      default:
        return this.message(d, path);
    }
  }

  /** The union's schema alternative, if recursion allows another level. */
  #schema(d: MessageDescriptor, path: readonly string[]): Json | undefined {
    const f = d.fields.find((x) => x.name === "schema");
    if (f?.type.kind !== "message") return undefined;
    const schema = this.#element(f, [...path, d.name]);
    return schema === UNSET ? undefined : (schema as Json);
  }

  #element(f: FieldDescriptor, path: readonly string[]): unknown {
    const type = f.type;
    switch (type.kind) {
      case "scalar":
        switch (type.scalar) {
          case "string":
            return `${f.name}-value`;
          case "bool":
            return true;
          case "int32":
            return -7;
          case "int64":
            return 2 ** 40 + 3;
          case "double":
            return 1.5;
        }
        break;
      case "bytes":
        return Buffer.from(`${f.name} bytes`).toString("base64");
      case "message": {
        const d = messageDescriptor(type.message);
        if (path.filter((p) => p === d.name).length >= 2) return UNSET;
        return this.special(d, path);
      }
      case "map": {
        if (type.value !== "message") {
          return type.value === "string"
            ? { a: `${f.name}-a`, b: `${f.name}-b` }
            : { a: Buffer.from("bytes").toString("base64") };
        }
        const d = messageDescriptor(type.message);
        if (path.filter((p) => p === d.name).length >= 2) return UNSET;
        const value = this.special(d, path);
        return value === UNSET ? UNSET : { a: value };
      }
    }
    throw new Error(`no sample for ${f.name}`);
  }

  message(d: MessageDescriptor, path: readonly string[] = []): Json {
    const out: Json = {};
    const here = [...path, d.name];
    for (const f of d.fields) {
      if (f.inline) {
        Object.assign(out, this.message(messageDescriptor((f.type as { message: string }).message), here));
        continue;
      }
      let value = this.#element(f, here);
      if (value !== UNSET && f.repeated && f.type.kind !== "map") value = [value];
      if (value === UNSET) {
        // Cut recursion: only nil-able fields can be left out, and they read back as Go writes nil.
        assert.ok(f.pointer || f.repeated || f.type.kind === "map", `${d.name}.${f.name} cannot be cut`);
        if (!f.omitEmpty) out[f.name] = null;
        continue;
      }
      out[f.name] = value;
    }
    return out;
  }
}

function fullSample(k: KindDescriptor): Json {
  return {
    kind: k.kind,
    apiVersion: apiVersionOf(k),
    ...new SampleBuilder().message(messageDescriptor(k.message)),
  };
}

describe("a full sample of every generated kind", () => {
  for (const k of generated.kinds) {
    it(`${apiVersionOf(k)} ${k.kind}: round trip`, () => {
      const object = fullSample(k);
      const body = encodeProtobufObject(object);
      const decoded = decodeProtobuf(body, { apiVersion: apiVersionOf(k), kind: k.kind });
      assert.deepEqual(decoded.unknownFields, []);
      assert.deepEqual(decoded.object, object);
      // Go's JSON key order: fields in struct order, embedded structs in place.
      assert.equal(JSON.stringify(decoded.object), JSON.stringify(object));
      assert.equal(
        Buffer.from(encodeProtobufObject(decoded.object)).toString("hex"),
        Buffer.from(body).toString("hex"),
      );
    });
  }
});

describe("a full sample of every generated kind, read by protobufjs from the IDL", {
  skip: skipWithoutIdl,
}, () => {
  const root = loadIdl();
  for (const k of generated.kinds) {
    it(`${apiVersionOf(k)} ${k.kind}: protobufjs re-encodes our bytes, which read back the same`, () => {
      const object = fullSample(k);
      const type = root.lookupType(k.message);
      const theirs = type.toObject(type.decode(encodeProtobufMessage(object)), {
        longs: Number,
        defaults: false,
      });
      const reencoded = type.encode(type.fromObject(theirs)).finish();
      assert.deepEqual(decodeProtobufObject(envelope(apiVersionOf(k), k.kind, reencoded)), object);
    });
  }
});

// ---------------------------------------------------------------------------------------------
// Bodies as Go writes them: value fields always (their zeros included), pointers when set.

describe("bodies written from upstream's IDL, as Go's marshallers write them", {
  skip: skipWithoutIdl,
}, () => {
  const root = loadIdl();
  const body = (apiVersion: string, kind: string, message: string, object: Json) => {
    const type = root.lookupType(message);
    const problem = type.verify(object);
    assert.equal(problem, null);
    return envelope(apiVersion, kind, type.encode(type.fromObject(object)).finish());
  };
  const zeroTime = {};
  const intOrString = (value: number | string) =>
    typeof value === "number"
      ? { type: 0, intVal: value, strVal: "" }
      : { type: 1, intVal: 0, strVal: value };
  const container = (name: string, image: string) => ({
    name,
    image,
    workingDir: "",
    resources: { limits: { cpu: { string: "500m" } } },
    terminationMessagePath: "",
    imagePullPolicy: "",
    stdin: false,
    stdinOnce: false,
    tty: false,
  });
  const podSpec = (extra: Json) => ({
    containers: [container("web", "nginx")],
    restartPolicy: "",
    dnsPolicy: "",
    serviceAccountName: "",
    nodeName: "",
    hostNetwork: false,
    hostPID: false,
    hostIPC: false,
    securityContext: {},
    hostname: "",
    subdomain: "",
    schedulerName: "",
    ...extra,
  });
  const expectedContainer = { name: "web", image: "nginx", resources: { limits: { cpu: "500m" } } };

  it("Deployment: replicas 0 and automountServiceAccountToken false kept, value fields' zeros dropped", () => {
    const decoded = decodeProtobuf(
      body("apps/v1", "Deployment", "k8s.io.api.apps.v1.Deployment", {
        metadata: {
          name: "web",
          namespace: "default",
          generation: 0,
          labels: { app: "web" },
          creationTimestamp: zeroTime,
        },
        spec: {
          replicas: 0,
          selector: { matchLabels: { app: "web" } },
          template: {
            metadata: { labels: { app: "web" }, creationTimestamp: zeroTime },
            spec: podSpec({ automountServiceAccountToken: false }),
          },
          strategy: {
            type: "",
            rollingUpdate: { maxUnavailable: intOrString(0), maxSurge: intOrString("25%") },
          },
          minReadySeconds: 0,
          paused: false,
        },
        status: {
          observedGeneration: 0,
          replicas: 0,
          updatedReplicas: 0,
          readyReplicas: 0,
          availableReplicas: 0,
          unavailableReplicas: 0,
        },
      }),
      { apiVersion: "apps/v1", kind: "Deployment" },
    );
    assert.deepEqual(decoded.unknownFields, []);
    assert.deepEqual(decoded.object, {
      kind: "Deployment",
      apiVersion: "apps/v1",
      metadata: { name: "web", namespace: "default", labels: { app: "web" }, creationTimestamp: null },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: "web" } },
        template: {
          metadata: { labels: { app: "web" }, creationTimestamp: null },
          spec: { containers: [expectedContainer], automountServiceAccountToken: false, securityContext: {} },
        },
        strategy: { rollingUpdate: { maxUnavailable: 0, maxSurge: "25%" } },
      },
      status: {},
    });
  });

  it("Service: port kept even when 0, targetPort as a number or a name, the status struct", () => {
    const decoded = decodeProtobufObject(
      body("v1", "Service", "k8s.io.api.core.v1.Service", {
        metadata: { name: "web", creationTimestamp: zeroTime },
        spec: {
          ports: [
            { name: "80-8080", protocol: "TCP", port: 80, targetPort: intOrString(8080), nodePort: 0 },
            { name: "metrics", protocol: "TCP", port: 0, targetPort: intOrString("metrics"), nodePort: 0 },
          ],
          selector: { app: "web" },
          clusterIP: "",
          type: "ClusterIP",
          sessionAffinity: "",
          loadBalancerIP: "",
          externalName: "",
          externalTrafficPolicy: "",
          healthCheckNodePort: 0,
          publishNotReadyAddresses: false,
        },
        status: { loadBalancer: {} },
      }),
    );
    assert.deepEqual(decoded, {
      kind: "Service",
      apiVersion: "v1",
      metadata: { name: "web", creationTimestamp: null },
      spec: {
        ports: [
          { name: "80-8080", protocol: "TCP", port: 80, targetPort: 8080 },
          { name: "metrics", protocol: "TCP", port: 0, targetPort: "metrics" },
        ],
        selector: { app: "web" },
        type: "ClusterIP",
      },
      status: { loadBalancer: {} },
    });
  });

  it("PodDisruptionBudget: minAvailable or maxUnavailable, the status counters without omitempty", () => {
    const status = {
      observedGeneration: 0,
      disruptionsAllowed: 0,
      currentHealthy: 0,
      desiredHealthy: 0,
      expectedPods: 0,
    };
    const min = decodeProtobufObject(
      body("policy/v1", "PodDisruptionBudget", "k8s.io.api.policy.v1.PodDisruptionBudget", {
        metadata: { name: "keep", creationTimestamp: zeroTime },
        spec: { minAvailable: intOrString(1), selector: { matchLabels: { app: "web" } } },
        status,
      }),
    );
    assert.deepEqual(min, {
      kind: "PodDisruptionBudget",
      apiVersion: "policy/v1",
      metadata: { name: "keep", creationTimestamp: null },
      spec: { minAvailable: 1, selector: { matchLabels: { app: "web" } } },
      status: { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 },
    });
    const max = decodeProtobufObject(
      body("policy/v1", "PodDisruptionBudget", "k8s.io.api.policy.v1.PodDisruptionBudget", {
        metadata: { name: "keep" },
        spec: { maxUnavailable: intOrString("50%"), unhealthyPodEvictionPolicy: "AlwaysAllow" },
        status: { ...status, disruptedPods: { "web-0": { seconds: 1714979289, nanos: 0 } } },
      }),
    );
    assert.deepEqual(max.spec, { maxUnavailable: "50%", unhealthyPodEvictionPolicy: "AlwaysAllow" });
    assert.deepEqual((max.status as Json).disruptedPods, { "web-0": "2024-05-06T07:08:09Z" });
  });

  it("Job: pointer zeros and false kept, nil pointers without omitempty as null", () => {
    const decoded = decodeProtobufObject(
      body("batch/v1", "Job", "k8s.io.api.batch.v1.Job", {
        metadata: { name: "once", creationTimestamp: zeroTime },
        spec: {
          backoffLimit: 0,
          manualSelector: false,
          ttlSecondsAfterFinished: 0,
          suspend: false,
          completionMode: "NonIndexed",
          template: {
            metadata: { creationTimestamp: zeroTime },
            spec: podSpec({ restartPolicy: "Never" }),
          },
          podFailurePolicy: {
            rules: [{ action: "FailJob", onExitCodes: { operator: "In", values: [1, 42] } }],
          },
        },
        status: { active: 0, succeeded: 0, failed: 0, completedIndexes: "" },
      }),
    );
    assert.deepEqual(decoded, {
      kind: "Job",
      apiVersion: "batch/v1",
      metadata: { name: "once", creationTimestamp: null },
      spec: {
        podFailurePolicy: {
          rules: [
            {
              action: "FailJob",
              onExitCodes: { containerName: null, operator: "In", values: [1, 42] },
              onPodConditions: null,
            },
          ],
        },
        backoffLimit: 0,
        manualSelector: false,
        template: {
          metadata: { creationTimestamp: null },
          spec: { containers: [expectedContainer], restartPolicy: "Never", securityContext: {} },
        },
        ttlSecondsAfterFinished: 0,
        completionMode: "NonIndexed",
        suspend: false,
      },
      status: {},
    });
  });

  it("special values at their zero, and an IntOrString of no known type", () => {
    // Value structs are written even when unset: IntOrString 0, Quantity "0", RawExtension null.
    const service = decodeProtobufObject(
      encodeProtobufObject({ apiVersion: "v1", kind: "Service", spec: { ports: [{ port: 80 }] } }),
    );
    assert.deepEqual((service.spec as Json).ports, [{ port: 80, targetPort: 0 }]);
    const quota = decodeProtobufObject(
      encodeProtobufObject({ apiVersion: "v1", kind: "ResourceQuota", spec: { hard: { pods: null } } }),
    );
    assert.deepEqual((quota.spec as Json).hard, { pods: "0" });
    const revision = decodeProtobufObject(
      encodeProtobufObject({ apiVersion: "apps/v1", kind: "ControllerRevision", revision: 1 }),
    );
    assert.deepEqual(revision, {
      kind: "ControllerRevision",
      apiVersion: "apps/v1",
      metadata: { creationTimestamp: null },
      data: null,
      revision: 1,
    });
    assert.throws(
      () =>
        decodeProtobuf(
          body("v1", "Service", "k8s.io.api.core.v1.Service", {
            spec: { ports: [{ port: 80, targetPort: { type: 2, intVal: 0, strVal: "" } }] },
          }),
        ),
      /impossible IntOrString.Type 2 in spec.ports\[0\].targetPort/,
    );
  });

  it("Job: repeated numbers read packed as well as unpacked", () => {
    const number = (message: string, name: string) => root.lookupType(message).fields[name]!.id;
    const batch = "k8s.io.api.batch.v1";
    const exitCodes = protobuf.Writer.create();
    exitCodes
      .uint32(number(`${batch}.PodFailurePolicyOnExitCodesRequirement`, "operator") * 8 + 2)
      .string("NotIn");
    exitCodes
      .uint32(number(`${batch}.PodFailurePolicyOnExitCodesRequirement`, "values") * 8 + 2)
      .fork()
      .int32(3)
      .int32(-1)
      .int32(300)
      .ldelim();
    const nest = (bytes: Uint8Array, message: string, name: string) =>
      protobuf.Writer.create()
        .uint32(number(message, name) * 8 + 2)
        .bytes(bytes)
        .finish();
    const rule = nest(exitCodes.finish(), `${batch}.PodFailurePolicyRule`, "onExitCodes");
    const policy = nest(rule, `${batch}.PodFailurePolicy`, "rules");
    const spec = nest(policy, `${batch}.JobSpec`, "podFailurePolicy");
    const job = nest(spec, `${batch}.Job`, "spec");
    const decoded = decodeProtobufObject(envelope("batch/v1", "Job", job));
    const rules = ((decoded.spec as Json).podFailurePolicy as Json).rules as Json[];
    assert.deepEqual(rules[0]!.onExitCodes, { containerName: null, operator: "NotIn", values: [3, -1, 300] });
  });

  it("CustomResourceDefinition: schema unions, JSON values and extension fields", () => {
    const json = (value: unknown) => ({ raw: Buffer.from(JSON.stringify(value)) });
    const group = k8s.group("apiextensions");
    const decoded = decodeProtobufObject(
      body(
        `${group}/v1`,
        "CustomResourceDefinition",
        "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition",
        {
          metadata: { name: "widgets.example.com", creationTimestamp: zeroTime },
          spec: {
            group: "example.com",
            names: { plural: "widgets", singular: "", kind: "Widget", listKind: "" },
            scope: "Namespaced",
            versions: [
              {
                name: "v1",
                served: true,
                storage: true,
                deprecated: false,
                schema: {
                  openAPIV3Schema: {
                    type: "object",
                    properties: {
                      spec: {
                        type: "object",
                        required: ["size"],
                        properties: {
                          size: { type: "integer", minimum: 1, default: json(3), enum: [json(1), json(3)] },
                          tags: { type: "array", items: { schema: { type: "string" } } },
                          labels: {
                            type: "object",
                            additionalProperties: { allows: true, schema: { type: "string" } },
                          },
                          pair: {
                            type: "array",
                            items: { jSONSchemas: [{ type: "string" }, { type: "integer" }] },
                          },
                        },
                        additionalProperties: { allows: false },
                      },
                      status: { type: "object", xKubernetesPreserveUnknownFields: true },
                    },
                    dependencies: { size: { property: ["tags"] } },
                  },
                },
              },
            ],
            preserveUnknownFields: false,
          },
          status: { acceptedNames: { plural: "", kind: "" } },
        },
      ),
    );
    assert.deepEqual(decoded, {
      kind: "CustomResourceDefinition",
      apiVersion: `${group}/v1`,
      metadata: { name: "widgets.example.com", creationTimestamp: null },
      spec: {
        group: "example.com",
        names: { plural: "widgets", kind: "Widget" },
        scope: "Namespaced",
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
                    required: ["size"],
                    properties: {
                      size: { type: "integer", default: 3, minimum: 1, enum: [1, 3] },
                      tags: { type: "array", items: { type: "string" } },
                      labels: { type: "object", additionalProperties: { type: "string" } },
                      pair: { type: "array", items: [{ type: "string" }, { type: "integer" }] },
                    },
                    additionalProperties: false,
                  },
                  status: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
                },
                dependencies: { size: ["tags"] },
              },
            },
          },
        ],
      },
      status: { conditions: null, acceptedNames: { plural: "", kind: "" }, storedVersions: null },
    });
  });
});
