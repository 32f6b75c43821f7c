import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { naming } from "../../naming/naming.ts";
import { deployment, pod, podSpec, shape, variant } from "./fixtures.test-support.ts";
import { kindValidators } from "./index.ts";
import { POD_UPDATE_FORBIDDEN } from "./pod.ts";
import type { Json } from "./util.ts";

const validators = kindValidators(naming("cluster"));

// biome-ignore lint/suspicious/noExplicitAny: test edits reach deep into plain JSON fixtures.
type Any = any;

function createPod(edit: (spec: Any, pod: Any) => void): string[][] {
  const p = variant(pod(), (o: Any) => edit(o.spec, o));
  return shape(validators["core/v1.Pod"]!.validate!(p));
}

const DNS_LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const PORT_RANGE = "must be between 1 and 65535, inclusive";

describe("pod spec", () => {
  it("accepts a realistic pod and template", () => {
    assert.deepEqual(shape(validators["core/v1.Pod"]!.validate!(pod())), []);
    assert.deepEqual(shape(validators["apps/v1.Deployment"]!.validate!(deployment())), []);
    const template = {
      metadata: { name: "t", namespace: "n" },
      template: { metadata: { labels: { a: "b" } }, spec: podSpec() },
    };
    assert.deepEqual(shape(validators["core/v1.PodTemplate"]!.validate!(template)), []);
  });

  const cases: [string, (spec: Any, pod: Any) => void, string[][]][] = [
    ["no containers", (s) => (s.containers = []), [["spec.containers", "Required", ""]]],
    [
      "container name not a DNS label",
      (s) => (s.containers[0].name = "Web_1"),
      [["spec.containers[0].name", "Invalid", DNS_LABEL_MSG]],
    ],
    [
      "empty container name",
      (s) => (s.containers[0].name = ""),
      [["spec.containers[0].name", "Required", ""]],
    ],
    [
      "duplicate container names",
      (s) => s.containers.push({ name: "web", image: "x" }),
      [["spec.containers[1].name", "Duplicate", ""]],
    ],
    [
      "init container named like a container",
      (s) => (s.initContainers[0].name = "web"),
      [["spec.initContainers[0].name", "Duplicate", ""]],
    ],
    ["image required", (s) => (s.containers[0].image = ""), [["spec.containers[0].image", "Required", ""]]],
    [
      "image with blanks (pods only)",
      (s) => (s.containers[0].image = " nginx"),
      [["spec.containers[0].image", "Invalid", "must not have leading or trailing whitespace"]],
    ],
    [
      "containerPort out of range",
      (s) => (s.containers[0].ports[0].containerPort = 70000),
      [["spec.containers[0].ports[0].containerPort", "Invalid", PORT_RANGE]],
    ],
    [
      "containerPort zero",
      (s) => (s.containers[0].ports[0].containerPort = 0),
      [["spec.containers[0].ports[0].containerPort", "Required", ""]],
    ],
    [
      "hostPort out of range",
      (s) => (s.containers[0].ports[0].hostPort = 65536),
      [["spec.containers[0].ports[0].hostPort", "Invalid", PORT_RANGE]],
    ],
    [
      "port name too long and upper case",
      (s) => (s.containers[0].ports[0].name = "Http-Port-Name-Long"),
      [
        ["spec.containers[0].ports[0].name", "Invalid", "must be no more than 15 characters"],
        [
          "spec.containers[0].ports[0].name",
          "Invalid",
          "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)",
        ],
      ],
    ],
    [
      "port name without letters",
      (s) => (s.containers[0].ports[0].name = "8080"),
      [["spec.containers[0].ports[0].name", "Invalid", "must contain at least one letter (a-z)"]],
    ],
    [
      "duplicate port names",
      (s) => (s.containers[0].ports[1].name = "http"),
      [["spec.containers[0].ports[1].name", "Duplicate", ""]],
    ],
    [
      "host port clash",
      (s) => {
        s.containers[0].ports[0].hostPort = 80;
        s.containers[0].ports[1].hostPort = 80;
      },
      [["spec.containers[0].ports[1].hostPort", "Duplicate", ""]],
    ],
    [
      "requests above limits",
      (s) => (s.containers[0].resources.requests.cpu = "1500m"),
      [["spec.containers[0].resources.requests", "Invalid", "must be less than or equal to cpu limit of 1"]],
    ],
    [
      "memory request above limit in other units",
      (s) => (s.containers[0].resources.requests.memory = "1Gi"),
      [
        [
          "spec.containers[0].resources.requests",
          "Invalid",
          "must be less than or equal to memory limit of 512Mi",
        ],
      ],
    ],
    [
      "unknown resource name",
      (s) => (s.containers[0].resources.limits.gpu = "1"),
      [
        [
          "spec.containers[0].resources.limits[gpu]",
          "Invalid",
          "must be a standard resource type or fully qualified",
        ],
        ["spec.containers[0].resources.limits[gpu]", "Invalid", "must be a standard resource for containers"],
      ],
    ],
    [
      "quota resource on a container",
      (s) => (s.containers[0].resources.requests.pods = "1"),
      [
        [
          "spec.containers[0].resources.requests[pods]",
          "Invalid",
          "must be a standard resource for containers",
        ],
      ],
    ],
    [
      "extended resource requests must equal limits",
      (s) => {
        s.containers[0].resources.requests["example.com/gpu"] = "1";
        s.containers[0].resources.limits["example.com/gpu"] = "2";
      },
      [["spec.containers[0].resources.requests", "Invalid", "must be equal to example.com/gpu limit of 2"]],
    ],
    [
      "extended resource request without limit",
      (s) => (s.containers[0].resources.requests["example.com/gpu"] = "1"),
      [
        [
          "spec.containers[0].resources.limits",
          "Required",
          "Limit must be set for non overcommitable resources",
        ],
      ],
    ],
    [
      "extended resource must be whole",
      (s) => (s.containers[0].resources.limits["example.com/gpu"] = "500m"),
      [["spec.containers[0].resources.limits[example.com/gpu]", "Invalid", "must be an integer"]],
    ],
    [
      "huge pages need cpu or memory",
      (s) => (s.containers[0].resources = { limits: { "hugepages-2Mi": "4Mi" } }),
      [["spec.containers[0].resources", "Forbidden", "HugePages require cpu or memory"]],
    ],
    [
      "liveness success threshold",
      (s) => (s.containers[0].livenessProbe.successThreshold = 2),
      [["spec.containers[0].livenessProbe.successThreshold", "Invalid", "must be 1"]],
    ],
    [
      "probe with two handlers",
      (s) => (s.containers[0].readinessProbe.exec = { command: ["true"] }),
      [
        [
          "spec.containers[0].readinessProbe.tcpSocket",
          "Forbidden",
          "may not specify more than 1 handler type",
        ],
      ],
    ],
    [
      "probe without handler",
      (s) => delete s.containers[0].startupProbe.exec,
      [["spec.containers[0].startupProbe", "Required", "must specify a handler type"]],
    ],
    [
      "probe with negative period",
      (s) => (s.containers[0].readinessProbe.periodSeconds = -1),
      [["spec.containers[0].readinessProbe.periodSeconds", "Invalid", "must be greater than or equal to 0"]],
    ],
    [
      "readiness probe grace period",
      (s) => (s.containers[0].readinessProbe.terminationGracePeriodSeconds = 10),
      [
        [
          "spec.containers[0].readinessProbe.terminationGracePeriodSeconds",
          "Invalid",
          "must not be set for readinessProbes",
        ],
      ],
    ],
    [
      "init containers take no probes",
      (s) => (s.initContainers[0].livenessProbe = { exec: { command: ["true"] } }),
      [["spec.initContainers[0].livenessProbe", "Forbidden", "may not be set for init containers"]],
    ],
    [
      "volume names unique",
      (s) => s.volumes.push({ name: "cache", emptyDir: {} }),
      [["spec.volumes[4].name", "Duplicate", ""]],
    ],
    [
      "volume name not a DNS label",
      (s) => (s.volumes[1].name = "Cache"),
      [
        ["spec.volumes[1].name", "Invalid", DNS_LABEL_MSG],
        ["spec.containers[0].volumeMounts[1].name", "NotFound", ""],
      ],
    ],
    [
      "volume with two sources",
      (s) => (s.volumes[1].hostPath = { path: "/tmp" }),
      [
        ["spec.volumes[1].hostPath", "Forbidden", "may not specify more than 1 volume type"],
        ["spec.containers[0].volumeMounts[1].name", "NotFound", ""],
      ],
    ],
    [
      "volume without source",
      (s) => s.volumes.push({ name: "empty" }),
      [["spec.volumes[4]", "Required", "must specify a volume type"]],
    ],
    [
      "secret volume without name",
      (s) => (s.volumes[2].secret.secretName = ""),
      [
        ["spec.volumes[2].secret.secretName", "Required", ""],
        ["spec.containers[0].volumeMounts[2].name", "NotFound", ""],
      ],
    ],
    [
      "file mode out of range",
      (s) => (s.volumes[0].configMap.defaultMode = 1000),
      [
        [
          "spec.volumes[0].configMap.defaultMode",
          "Invalid",
          "must be a number between 0 and 0777 (octal), both inclusive",
        ],
        ["spec.containers[0].volumeMounts[0].name", "NotFound", ""],
      ],
    ],
    [
      "item path escaping the volume",
      (s) => (s.volumes[0].configMap.items[0].path = "../app.yaml"),
      [
        ["spec.volumes[0].configMap.items[0].path", "Invalid", "must not contain '..'"],
        ["spec.containers[0].volumeMounts[0].name", "NotFound", ""],
      ],
    ],
    [
      "mount of an unknown volume",
      (s) => (s.containers[0].volumeMounts[0].name = "nope"),
      [["spec.containers[0].volumeMounts[0].name", "NotFound", ""]],
    ],
    [
      "mountPath required and unique",
      (s) => {
        s.containers[0].volumeMounts[1].mountPath = "";
        s.containers[0].volumeMounts[2].mountPath = "/etc/web";
      },
      [
        ["spec.containers[0].volumeMounts[1].mountPath", "Required", ""],
        ["spec.containers[0].volumeMounts[2].mountPath", "Invalid", "must be unique"],
      ],
    ],
    [
      "subPath escaping",
      (s) => (s.containers[0].volumeMounts[0].subPath = "../etc"),
      [["spec.containers[0].volumeMounts.subPath", "Invalid", "must not contain '..'"]],
    ],
    [
      "env var name",
      (s) => (s.containers[0].env[0].name = "1LOG"),
      [
        [
          "spec.containers[0].env[0].name",
          "Invalid",
          "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')",
        ],
      ],
    ],
    [
      "env value and valueFrom",
      (s) => (s.containers[0].env[1].value = "x"),
      [["spec.containers[0].env[1].valueFrom", "Invalid", "may not be specified when `value` is not empty"]],
    ],
    [
      "unsupported fieldRef",
      (s) => (s.containers[0].env[1].valueFrom.fieldRef.fieldPath = "metadata.labels"),
      [
        [
          "spec.containers[0].env[1].valueFrom.fieldRef.fieldPath",
          "NotSupported",
          "metadata.name|metadata.namespace|metadata.uid|spec.nodeName|spec.serviceAccountName|status.hostIP|status.podIP|status.podIPs",
        ],
      ],
    ],
    [
      "unconvertible fieldRef",
      (s) => (s.containers[0].env[1].valueFrom.fieldRef.fieldPath = "spec.containers"),
      [
        [
          "spec.containers[0].env[1].valueFrom.fieldRef.fieldPath",
          "Invalid",
          "error converting fieldPath: field label not supported: spec.containers",
        ],
      ],
    ],
    [
      "bad memory divisor",
      (s) => (s.containers[0].env[3].valueFrom.resourceFieldRef.divisor = "1m"),
      [
        [
          "spec.containers[0].env[3].valueFrom.resourceFieldRef.divisor",
          "Invalid",
          "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the memory resource",
        ],
      ],
    ],
    [
      "envFrom without source",
      (s) => (s.containers[0].envFrom = [{ prefix: "X_" }]),
      [["spec.containers[0].envFrom", "Invalid", "must specify one of: `configMapRef` or `secretRef`"]],
    ],
    [
      "dnsPolicy None needs dnsConfig",
      (s) => (s.dnsPolicy = "None"),
      [["spec.dnsConfig", "Required", "must provide `dnsConfig` when `dnsPolicy` is None"]],
    ],
    [
      "dnsPolicy None needs a nameserver",
      (s) => {
        s.dnsPolicy = "None";
        s.dnsConfig = { searches: ["svc.local"] };
      },
      [
        [
          "spec.dnsConfig.nameservers",
          "Required",
          "must provide at least one DNS nameserver when `dnsPolicy` is None",
        ],
      ],
    ],
    [
      "bad nameserver",
      (s) => (s.dnsConfig = { nameservers: ["10.0.0.300"] }),
      [
        [
          "spec.dnsConfig.nameservers[0]",
          "Invalid",
          "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)",
        ],
      ],
    ],
    [
      "toleration operator Exists with value",
      (s) => (s.tolerations[1].value = "x"),
      [["spec.tolerations[1].operator", "Invalid", "value must be empty when `operator` is 'Exists'"]],
    ],
    [
      "toleration seconds without NoExecute",
      (s) => (s.tolerations[0].tolerationSeconds = 10),
      [
        [
          "spec.tolerations[0].effect",
          "Invalid",
          "effect must be 'NoExecute' when `tolerationSeconds` is set",
        ],
      ],
    ],
    [
      "empty toleration key needs Exists",
      (s) => (s.tolerations[0].key = ""),
      [
        [
          "spec.tolerations[0].operator",
          "Invalid",
          'operator must be Exists when `key` is empty, which means "match all values and all keys"',
        ],
      ],
    ],
    [
      "node affinity without terms",
      (s) => (s.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms = []),
      [
        [
          "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms",
          "Required",
          "must have at least one node selector term",
        ],
      ],
    ],
    [
      "affinity weight range",
      (s) => (s.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight = 0),
      [
        [
          "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight",
          "Invalid",
          "must be in the range 1-100",
        ],
      ],
    ],
    [
      "pod affinity without topology key",
      (s) =>
        (s.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologyKey =
          ""),
      [
        [
          "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologyKey",
          "Required",
          "can not be empty",
        ],
        [
          "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologyKey",
          "Invalid",
          "name part must be non-empty",
        ],
        [
          "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologyKey",
          "Invalid",
          "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        ],
      ],
    ],
    [
      "topology spread skew",
      (s) => (s.topologySpreadConstraints[0].maxSkew = 0),
      [["spec.topologySpreadConstraints[0].maxSkew", "Invalid", "must be greater than zero"]],
    ],
    [
      "activeDeadlineSeconds positive",
      (s) => (s.activeDeadlineSeconds = 0),
      [["spec.activeDeadlineSeconds", "Invalid", "must be between 1 and 2147483647, inclusive"]],
    ],
    ["hostname label", (s) => (s.hostname = "a.b"), [["spec.hostname", "Invalid", "must not contain dots"]]],
    [
      "sysctl names",
      (s) => s.securityContext.sysctls.push({ name: "net.ipv4.ip_local_port_range", value: "1" }),
      [["spec.securityContext.sysctls[1].name", "Duplicate", ""]],
    ],
    [
      "runAsUser range",
      (s) => (s.containers[0].securityContext.runAsUser = -1),
      [
        [
          "spec.containers[0].securityContext.runAsUser",
          "Invalid",
          "must be between 0 and 2147483647, inclusive",
        ],
      ],
    ],
    [
      "privileged without escalation",
      (s) => (s.containers[0].securityContext.privileged = true),
      [
        [
          "spec.containers[0].securityContext",
          "Invalid",
          "cannot set `allowPrivilegeEscalation` to false and `privileged` to true",
        ],
      ],
    ],
    [
      "hostNetwork ports must match",
      (s) => {
        s.hostNetwork = true;
        s.containers[0].ports[0].hostPort = 8080;
        s.containers[0].ports[1].hostPort = 9091;
      },
      [
        [
          "spec.containers[0].ports[1].containerPort",
          "Invalid",
          "must match `hostPort` when `hostNetwork` is true",
        ],
      ],
    ],
    [
      "windows options on a linux pod",
      (s) => {
        s.os = { name: "linux" };
        s.containers[0].securityContext.windowsOptions = { runAsUserName: "x" };
      },
      [
        [
          "spec.containers[0].securityContext.windowsOptions",
          "Forbidden",
          "windows options cannot be set for a linux pod",
        ],
      ],
    ],
    [
      "projected token without service account (pods only)",
      (s) => (s.serviceAccountName = ""),
      [
        [
          "spec.volumes[3].projected.sources[0].serviceAccountToken",
          "Forbidden",
          "must not be specified when serviceAccountName is not set",
        ],
      ],
    ],
    [
      "ephemeral containers on create",
      (s) => (s.ephemeralContainers = [{ name: "debug", image: "busybox", targetContainerName: "web" }]),
      [["spec.ephemeralContainers", "Forbidden", "cannot be set on create"]],
    ],
    [
      "node name with scheduling gates",
      (s) => {
        s.nodeName = "node-1";
        s.schedulingGates = [{ name: "example.com/wait" }];
      },
      [["spec.nodeName", "Forbidden", "cannot be set until all schedulingGates have been cleared"]],
    ],
  ];
  for (const [name, edit, want] of cases) {
    it(`refuses: ${name}`, () => assert.deepEqual(createPod(edit), want));
  }

  it("reports an ephemeral claim name that cannot be a claim", () => {
    const got = createPod((s, p) => {
      p.metadata.name = "a".repeat(250);
      s.volumes.push({
        name: "scratch",
        ephemeral: {
          volumeClaimTemplate: {
            spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
          },
        },
      });
    });
    assert.deepEqual(got, [
      [
        "spec.volumes[4].name",
        "Invalid",
        `PVC name "${"a".repeat(250)}-scratch": must be no more than 253 characters`,
      ],
    ]);
  });

  it("shows the value and the supported values upstream shows", () => {
    const errs = validators["core/v1.Pod"]!.validate!(
      variant(pod(), (o: Any) => {
        o.spec.containers[0].ports[0].containerPort = 0;
        o.spec.volumes[1].emptyDir.sizeLimit = "-1Gi";
      }),
    );
    const sizeLimit = errs.find((e) => e.field === "spec.volumes[1].emptyDir.sizeLimit");
    assert.equal(sizeLimit?.detail, "SizeLimit field must be a valid resource quantity");
    const port = errs.find((e) => e.field === "spec.containers[0].ports[0].containerPort");
    assert.equal(port?.type, "FieldValueRequired");
  });
});

describe("pod update", () => {
  const validator = validators["core/v1.Pod"]!;
  const update = (edit: (spec: Any) => void, before: (spec: Any) => void = () => {}) => {
    const old = variant(pod(), (o: Any) => before(o.spec));
    const now = variant(old, (o: Any) => edit(o.spec));
    return validator.validateUpdate!(now, old);
  };

  it("allows the updatable fields", () => {
    assert.deepEqual(
      shape(
        update((s) => {
          s.containers[0].image = "registry.example/web:1.5.0";
          s.initContainers[0].image = "registry.example/web:1.5.0";
          s.activeDeadlineSeconds = 100;
          s.tolerations.push({ key: "example.com/new", operator: "Exists" });
          s.tolerations[1].tolerationSeconds = 60;
        }),
      ),
      [],
    );
    assert.deepEqual(
      shape(
        update(
          (s) => (s.terminationGracePeriodSeconds = 1),
          (s) => (s.terminationGracePeriodSeconds = -5),
        ),
      ),
      [],
    );
    assert.deepEqual(
      shape(
        update(
          (s) => {
            s.schedulingGates = [];
            s.nodeSelector.extra = "yes";
          },
          (s) => (s.schedulingGates = [{ name: "example.com/wait" }]),
        ),
      ),
      [],
    );
  });

  it("forbids other changes with upstream's text", () => {
    const errs = update((s) => (s.containers[0].ports[0].containerPort = 8081));
    assert.equal(errs.length, 1);
    assert.equal(errs[0]!.field, "spec");
    assert.equal(errs[0]!.type, "FieldValueForbidden");
    const detail = errs[0]!.detail ?? "";
    assert.ok(detail.startsWith(`${POD_UPDATE_FORBIDDEN}\n`));
    assert.equal(
      POD_UPDATE_FORBIDDEN,
      "pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
    );
    assert.match(detail, /spec\.containers\[0\]\.ports\[0\]\.containerPort: 8080/);
  });

  const cases: [string, (s: Any) => void, ((s: Any) => void) | undefined, string[][]][] = [
    [
      "adding a container",
      (s) => s.containers.push({ name: "side", image: "x" }),
      undefined,
      [["spec.containers", "Forbidden", "pod updates may not add or remove containers"]],
    ],
    [
      "raising the deadline",
      (s) => (s.activeDeadlineSeconds = 200),
      (s) => (s.activeDeadlineSeconds = 100),
      [["spec.activeDeadlineSeconds", "Invalid", "must be less than or equal to previous value"]],
    ],
    [
      "dropping the deadline",
      (s) => delete s.activeDeadlineSeconds,
      (s) => (s.activeDeadlineSeconds = 100),
      [["spec.activeDeadlineSeconds", "Invalid", "must not update from a positive integer to nil value"]],
    ],
    [
      "changing a toleration",
      (s) => (s.tolerations[0].value = "api"),
      undefined,
      [
        [
          "spec.tolerations",
          "Forbidden",
          "existing toleration can not be modified except its tolerationSeconds",
        ],
      ],
    ],
    [
      "adding a scheduling gate",
      (s) => (s.schedulingGates = [{ name: "example.com/a" }, { name: "example.com/b" }]),
      (s) => (s.schedulingGates = [{ name: "example.com/a" }]),
      [
        [
          "spec.schedulingGates[1].name",
          "Forbidden",
          "only deletion is allowed, but found new scheduling gate 'example.com/b'",
        ],
      ],
    ],
    [
      "changing a gated pod's node selector",
      (s) => (s.nodeSelector["example.com/pool"] = "batch"),
      (s) => (s.schedulingGates = [{ name: "example.com/a" }]),
      [
        [
          "spec.nodeSelector",
          "Invalid",
          "only additions to spec.nodeSelector are allowed (no mutations or deletions)",
        ],
      ],
    ],
  ];
  for (const [name, edit, before, want] of cases) {
    it(`refuses: ${name}`, () => {
      assert.deepEqual(shape(update(edit, before)), want);
    });
  }
});

describe("field error values", () => {
  it("carries the offending value", () => {
    const errs = validators["core/v1.Pod"]!.validate!(
      variant(pod(), (o: Json) => {
        ((o.spec as Any).containers[0] as Any).name = "Bad";
      }),
    );
    assert.equal(errs[0]?.value, "Bad");
  });
});
