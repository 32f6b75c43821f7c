import "reflect-metadata"; // @peculiar/x509 needs the Reflect polyfill
import assert from "node:assert/strict";
import { webcrypto } from "node:crypto";
import { before, describe, it } from "node:test";
import * as x509 from "@peculiar/x509";
import { naming } from "../../naming/naming.ts";
import { csrProblem } from "./certificates.ts";
import { shape, variant } from "./fixtures.test-support.ts";
import { kindValidators } from "./index.ts";
import type { Json } from "./util.ts";

// biome-ignore lint/suspicious/noExplicitAny: test edits reach deep into plain JSON fixtures.
type Any = any;

const n = naming("cluster");
const validators = kindValidators(n);

const check = (id: string, base: Json, edit: (o: Any) => void = () => {}, old?: Json) => {
  const o = variant(base, edit);
  return shape(old ? validators[id]!.validateUpdate!(o, old) : validators[id]!.validate!(o));
};

describe("Ingress", () => {
  const id = "networking/v1.Ingress";
  const ingress = (): Json => ({
    metadata: { name: "web", namespace: "shop" },
    spec: {
      ingressClassName: "nginx",
      tls: [{ hosts: ["shop.example.com", "*.shop.example.com"], secretName: "shop-tls" }],
      rules: [
        {
          host: "shop.example.com",
          http: {
            paths: [
              {
                path: "/",
                pathType: "Prefix",
                backend: { service: { name: "web", port: { name: "http" } } },
              },
              {
                path: "/api",
                pathType: "Exact",
                backend: { service: { name: "api", port: { number: 8080 } } },
              },
              {
                pathType: "ImplementationSpecific",
                backend: { resource: { apiGroup: "storage.example.com", kind: "Bucket", name: "assets" } },
              },
            ],
          },
        },
      ],
    },
  });
  it("accepts a realistic ingress", () => assert.deepEqual(check(id, ingress()), []));
  const cases: [string, (o: Any) => void, string[][]][] = [
    [
      "Prefix paths are absolute",
      (o) => (o.spec.rules[0].http.paths[0].path = "api"),
      [["spec.rules[0].http.paths[0].path", "Invalid", "must be an absolute path"]],
    ],
    [
      "no double slashes",
      (o) => (o.spec.rules[0].http.paths[1].path = "/a//b"),
      [["spec.rules[0].http.paths[1].path", "Invalid", "must not contain '//'"]],
    ],
    [
      "backend needs exactly one kind",
      (o) => (o.spec.rules[0].http.paths[0].backend.resource = { kind: "Bucket", name: "x" }),
      [["spec.rules[0].http.paths[0].backend", "Invalid", "cannot set both resource and service backends"]],
    ],
    [
      "backend needs one kind at all",
      (o) => (o.spec.rules[0].http.paths[0].backend = {}),
      [["spec.rules[0].http.paths[0].backend", "Invalid", "resource or service backend is required"]],
    ],
    [
      "service port name or number",
      (o) => (o.spec.rules[0].http.paths[0].backend.service.port = {}),
      [["spec.rules[0].http.paths[0].backend", "Required", "port name or number is required"]],
    ],
    [
      "host is not an IP",
      (o) => (o.spec.rules[0].host = "10.0.0.1"),
      [["spec.rules[0].host", "Invalid", "must be a DNS name, not an IP address"]],
    ],
    [
      "rules or default backend",
      (o) => (o.spec.rules = []),
      [["spec", "Invalid", "either `defaultBackend` or `rules` must be specified"]],
    ],
    [
      "class annotation must agree",
      (o) => (o.metadata.annotations = { [n.label("ingress.class")]: "traefik" }),
      [
        [
          `annotations.${n.label("ingress.class")}`,
          "Invalid",
          "must match `ingressClassName` when both are specified",
        ],
      ],
    ],
  ];
  for (const [name, edit, want] of cases)
    it(`refuses: ${name}`, () => assert.deepEqual(check(id, ingress(), edit), want));

  it("IngressClass controller", () => {
    const cls = { metadata: { name: "nginx" }, spec: { controller: "example.com/ingress-nginx" } };
    assert.deepEqual(check("networking/v1.IngressClass", cls), []);
    assert.deepEqual(
      check("networking/v1.IngressClass", cls, (o) => (o.spec.controller = "nginx")),
      [["spec.controller", "Invalid", 'must be a domain-prefixed path (such as "acme.io/foo")']],
    );
    assert.deepEqual(
      check("networking/v1.IngressClass", cls, (o) => (o.spec.controller = "example.com/other"), cls),
      [["spec.controller", "Invalid", "field is immutable"]],
    );
  });
});

describe("NetworkPolicy", () => {
  const id = "networking/v1.NetworkPolicy";
  const policy = (): Json => ({
    metadata: { name: "web", namespace: "shop" },
    spec: {
      podSelector: { matchLabels: { app: "web" } },
      policyTypes: ["Ingress", "Egress"],
      ingress: [
        {
          from: [
            {
              namespaceSelector: { matchLabels: { team: "shop" } },
              podSelector: { matchLabels: { app: "lb" } },
            },
          ],
          ports: [{ protocol: "TCP", port: 8080 }, { port: "metrics" }, { port: 30000, endPort: 32767 }],
        },
      ],
      egress: [{ to: [{ ipBlock: { cidr: "10.0.0.0/8", except: ["10.1.0.0/16"] } }] }],
    },
  });
  it("accepts a realistic policy", () => assert.deepEqual(check(id, policy()), []));
  it("refuses bad ports and peers", () => {
    assert.deepEqual(
      check(id, policy(), (o) => (o.spec.ingress[0].ports[2].endPort = 100)),
      [["spec.ingress[0].ports[2].endPort", "Invalid", "must be greater than or equal to `port`"]],
    );
    assert.deepEqual(
      check(id, policy(), (o) => (o.spec.ingress[0].ports[1].endPort = 9000)),
      [["spec.ingress[0].ports[1].endPort", "Invalid", "may not be specified when `port` is non-numeric"]],
    );
    assert.deepEqual(
      check(id, policy(), (o) => (o.spec.egress[0].to[0].ipBlock.except = ["192.168.0.0/16"])),
      [["spec.egress[0].to[0].ipBlock.except[0]", "Invalid", "must be a strict subset of `cidr`"]],
    );
    assert.deepEqual(
      check(id, policy(), (o) => (o.spec.egress[0].to[0].ipBlock.cidr = "10.0.0.0")),
      [["spec.egress[0].to[0].ipBlock.cidr", "Invalid", "not a valid CIDR"]],
    );
    assert.deepEqual(
      check(id, policy(), (o) => (o.spec.egress[0].to[0].podSelector = {})),
      [["spec.egress[0].to[0]", "Forbidden", "may not specify both ipBlock and another peer"]],
    );
    assert.deepEqual(
      check(id, policy(), (o) => (o.spec.egress[0].to = [{}])),
      [["spec.egress[0].to[0]", "Required", "must specify a peer"]],
    );
  });
});

describe("EndpointSlice", () => {
  const id = "discovery/v1.EndpointSlice";
  const slice = (): Json => ({
    metadata: { name: "web-abc", namespace: "shop" },
    addressType: "IPv4",
    endpoints: [{ addresses: ["10.244.1.5"], conditions: { ready: true }, nodeName: "node-1", zone: "a" }],
    ports: [{ name: "http", port: 8080, protocol: "TCP" }],
  });
  it("accepts a realistic slice", () => assert.deepEqual(check(id, slice()), []));
  it("refuses bad addresses", () => {
    assert.deepEqual(
      check(id, slice(), (o) => (o.endpoints[0].addresses = ["fd00::1"])),
      [["endpoints[0].addresses[0]", "Invalid", "must be a valid IPv4 address"]],
    );
    assert.deepEqual(
      check(id, slice(), (o) => (o.endpoints[0].addresses = [])),
      [["endpoints[0].addresses", "Required", "must contain at least 1 address"]],
    );
    assert.deepEqual(
      check(id, slice(), (o) => {
        o.addressType = "FQDN";
        o.endpoints[0].addresses = ["localhost"];
      }),
      [
        [
          "endpoints[0].addresses[0]",
          "Invalid",
          "should be a domain with at least two segments separated by dots",
        ],
      ],
    );
    const old = slice();
    assert.deepEqual(check(id, old, (o) => (o.addressType = "IPv6"), old).slice(-1), [
      ["addressType", "Invalid", "field is immutable"],
    ]);
  });
});

describe("PodDisruptionBudget, HorizontalPodAutoscaler, PriorityClass, RuntimeClass", () => {
  it("PodDisruptionBudget", () => {
    const pdb = {
      metadata: { name: "web", namespace: "shop" },
      spec: { minAvailable: "50%", selector: { matchLabels: { app: "web" } } },
    };
    const id = "policy/v1.PodDisruptionBudget";
    assert.deepEqual(check(id, pdb), []);
    assert.deepEqual(
      check(id, pdb, (o) => (o.spec.maxUnavailable = 1)),
      [["spec", "Invalid", "minAvailable and maxUnavailable cannot be both set"]],
    );
    assert.deepEqual(
      check(id, pdb, (o) => (o.spec.minAvailable = "150%")),
      [["spec.minAvailable", "Invalid", "must not be greater than 100%"]],
    );
    assert.deepEqual(
      check(id, pdb, (o) => (o.spec.minAvailable = -1)),
      [["spec.minAvailable", "Invalid", "must be greater than or equal to 0"]],
    );
  });

  it("HorizontalPodAutoscaler", () => {
    const id = "autoscaling/v2.HorizontalPodAutoscaler";
    const hpa = {
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
        behavior: {
          scaleDown: {
            stabilizationWindowSeconds: 300,
            policies: [{ type: "Percent", value: 50, periodSeconds: 60 }],
          },
        },
      },
    };
    assert.deepEqual(check(id, hpa), []);
    assert.deepEqual(
      check(id, hpa, (o) => (o.spec.maxReplicas = 1)),
      [["spec.maxReplicas", "Invalid", "must be greater than or equal to `minReplicas`"]],
    );
    assert.deepEqual(
      check(id, hpa, (o) => {
        o.spec.maxReplicas = 0;
        delete o.spec.minReplicas;
      }),
      [["spec.maxReplicas", "Invalid", "must be greater than 0"]],
    );
    assert.deepEqual(
      check(id, hpa, (o) => (o.spec.minReplicas = 0)),
      [["spec.minReplicas", "Invalid", "must be greater than or equal to 1"]],
    );
    assert.deepEqual(
      check(id, hpa, (o) => (o.spec.metrics[0].type = "Pods")),
      [["spec.metrics[0].pods", "Required", "must populate information for the given metric source"]],
    );
    assert.deepEqual(
      check(
        id,
        hpa,
        (o) =>
          (o.spec.metrics[0].pods = {
            metric: { name: "qps" },
            target: { type: "AverageValue", averageValue: "10" },
          }),
      ),
      [["spec.metrics[0].pods", "Forbidden", "must populate the given metric source only"]],
    );
    assert.deepEqual(
      check(id, hpa, (o) => (o.spec.behavior.scaleDown.stabilizationWindowSeconds = 4000)),
      [
        [
          "spec.behavior.scaleDown.stabilizationWindowSeconds",
          "Invalid",
          "must be less than or equal to 3600",
        ],
      ],
    );
  });

  it("PriorityClass", () => {
    const id = "scheduling/v1.PriorityClass";
    const pc = {
      metadata: { name: "web-critical" },
      value: 100000,
      preemptionPolicy: "PreemptLowerPriority",
    };
    assert.deepEqual(check(id, pc), []);
    assert.deepEqual(
      check(id, pc, (o) => (o.value = 2000000000)),
      [["value", "Forbidden", "maximum allowed value of a user defined priority is 1000000000"]],
    );
    assert.deepEqual(
      check(id, pc, (o) => (o.metadata.name = "system-special")),
      [
        [
          "metadata.name",
          "Forbidden",
          "priority class names with 'system-' prefix are reserved for system use only. error: system-special is not a known system priority class",
        ],
      ],
    );
    assert.deepEqual(check(id, { metadata: { name: "system-node-critical" }, value: 2000001000 }), []);
    assert.deepEqual(
      check(id, pc, (o) => (o.value = 5), pc),
      [["value", "Forbidden", "may not be changed in an update."]],
    );
  });

  it("RuntimeClass", () => {
    const id = "node/v1.RuntimeClass";
    const rc = {
      metadata: { name: "gvisor" },
      handler: "runsc",
      overhead: { podFixed: { cpu: "250m", memory: "64Mi" } },
    };
    assert.deepEqual(check(id, rc), []);
    assert.deepEqual(
      check(id, rc, (o) => (o.handler = "run.sc")),
      [["handler", "Invalid", "must not contain dots"]],
    );
    assert.deepEqual(
      check(id, rc, (o) => (o.handler = "kata"), rc),
      [["handler", "Invalid", "field is immutable"]],
    );
  });
});

describe("webhook configurations", () => {
  const id = "admissionregistration/v1.ValidatingWebhookConfiguration";
  const config = (): Json => ({
    metadata: { name: "policy" },
    webhooks: [
      {
        name: "pods.policy.example.com",
        clientConfig: {
          service: { namespace: "policy", name: "webhook", path: "/validate", port: 443 },
          caBundle: "",
        },
        rules: [
          {
            operations: ["CREATE", "UPDATE"],
            apiGroups: [""],
            apiVersions: ["v1"],
            resources: ["pods", "pods/status"],
            scope: "*",
          },
        ],
        failurePolicy: "Fail",
        matchPolicy: "Equivalent",
        sideEffects: "None",
        timeoutSeconds: 10,
        admissionReviewVersions: ["v1"],
        namespaceSelector: {},
        objectSelector: {},
      },
    ],
  });
  it("accepts a realistic configuration (both kinds)", () => {
    assert.deepEqual(check(id, config()), []);
    assert.deepEqual(check("admissionregistration/v1.MutatingWebhookConfiguration", config()), []);
  });
  const cases: [string, (o: Any) => void, string[][]][] = [
    [
      "name with two segments",
      (o) => (o.webhooks[0].name = "policy.example"),
      [["webhooks[0].name", "Invalid", "should be a domain with at least three segments separated by dots"]],
    ],
    [
      "duplicate names",
      (o) => o.webhooks.push(structuredClone(o.webhooks[0])),
      [["webhooks[1].name", "Duplicate", ""]],
    ],
    [
      "side effects on create",
      (o) => (o.webhooks[0].sideEffects = "Some"),
      [["webhooks[0].sideEffects", "NotSupported", "None|NoneOnDryRun"]],
    ],
    [
      "timeout range",
      (o) => (o.webhooks[0].timeoutSeconds = 31),
      [["webhooks[0].timeoutSeconds", "Invalid", "the timeout value must be between 1 and 30 seconds"]],
    ],
    [
      "review versions required",
      (o) => (o.webhooks[0].admissionReviewVersions = []),
      [["webhooks[0].admissionReviewVersions", "Required", "must specify one of v1, v1beta1"]],
    ],
    [
      "unknown review versions only",
      (o) => (o.webhooks[0].admissionReviewVersions = ["v2"]),
      [["webhooks[0].admissionReviewVersions", "Invalid", "must include at least one of v1, v1beta1"]],
    ],
    [
      "url and service",
      (o) => (o.webhooks[0].clientConfig.url = "https://hooks.example.com/validate"),
      [["webhooks[0].clientConfig", "Required", "exactly one of url or service is required"]],
    ],
    [
      "url rules",
      (o) => (o.webhooks[0].clientConfig = { url: "http://user@hooks.example.com/v?x=1#top" }),
      [
        [
          "webhooks[0].clientConfig.url",
          "Invalid",
          "'https' is the only allowed URL scheme; desired format: https://host[/path]",
        ],
        ["webhooks[0].clientConfig.url", "Invalid", "user information is not permitted in the URL"],
        ["webhooks[0].clientConfig.url", "Invalid", "fragments are not permitted in the URL"],
        ["webhooks[0].clientConfig.url", "Invalid", "query parameters are not permitted in the URL"],
      ],
    ],
    [
      "matchConditions: names, duplicates and expressions",
      (o) =>
        (o.webhooks[0].matchConditions = [
          { name: "ok", expression: "request.userInfo.username != 'system:admin'" },
          { name: "ok", expression: "true" },
          { name: "bad name!", expression: "true" },
          { name: "broken", expression: "object.metadata.name ==" },
          { name: "number", expression: "1 + 1" },
        ]),
      [
        ["webhooks[0].matchConditions[1].name", "Duplicate", ""],
        [
          "webhooks[0].matchConditions[2].name",
          "Invalid",
          "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        ],
        [
          "webhooks[0].matchConditions[3].expression",
          "Invalid",
          "compilation failed: ERROR: <input>:1:24: Syntax error: Unexpected token: EOF\n | object.metadata.name ==\n | .......................^",
        ],
        [
          "webhooks[0].matchConditions[4].expression",
          "Invalid",
          "compilation failed: cel expression must evaluate to a bool",
        ],
      ],
    ],
    [
      "url naming an in-cluster service",
      (o) => (o.webhooks[0].clientConfig = { url: "https://hook.webhooks.svc:8443/validate" }),
      [
        [
          "webhooks[0].clientConfig.url",
          "Invalid",
          "host must not refer to a service in the cluster; use clientConfig.service instead",
        ],
      ],
    ],
    [
      "url naming an in-cluster service by its full name",
      (o) => (o.webhooks[0].clientConfig = { url: "https://hook.webhooks.svc.cluster.local/validate" }),
      [
        [
          "webhooks[0].clientConfig.url",
          "Invalid",
          "host must not refer to a service in the cluster; use clientConfig.service instead",
        ],
      ],
    ],
    [
      "url naming a host outside the cluster",
      (o) => (o.webhooks[0].clientConfig = { url: "https://svc.example.com/validate" }),
      [],
    ],
    [
      "service path",
      (o) => (o.webhooks[0].clientConfig.service.path = "validate"),
      [["webhooks[0].clientConfig.service.path", "Invalid", "must start with a '/'"]],
    ],
    [
      "rules",
      (o) =>
        (o.webhooks[0].rules[0] = {
          operations: [],
          apiGroups: ["*", "apps"],
          apiVersions: ["v1"],
          resources: ["*", "pods"],
        }),
      [
        ["webhooks[0].rules[0].operations", "Required", ""],
        ["webhooks[0].rules[0].apiGroups", "Invalid", "if '*' is present, must not specify other API groups"],
        [
          "webhooks[0].rules[0].resources",
          "Invalid",
          "if '*' is present, must not specify other resources without subresources",
        ],
      ],
    ],
  ];
  for (const [name, edit, want] of cases)
    it(`refuses: ${name}`, () => assert.deepEqual(check(id, config(), edit), want));

  it("keeps tolerating side effects the stored object already has", () => {
    const old = variant(config(), (o: Any) => (o.webhooks[0].sideEffects = "Unknown"));
    assert.deepEqual(
      check(id, old, (o) => (o.webhooks[0].timeoutSeconds = 5), old),
      [],
    );
  });
});

describe("CertificateSigningRequest", () => {
  const id = "certificates/v1.CertificateSigningRequest";
  let request = "";
  before(async () => {
    const alg = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };
    const keys = await webcrypto.subtle.generateKey(alg, true, ["sign", "verify"]);
    const csr = await x509.Pkcs10CertificateRequestGenerator.create(
      { name: "CN=alice", keys, signingAlgorithm: alg },
      webcrypto,
    );
    request = Buffer.from(csr.toString("pem")).toString("base64");
  });
  const csr = (): Json => ({
    metadata: { name: "alice" },
    spec: {
      request,
      signerName: "example.com/client",
      usages: ["digital signature", "client auth"],
      expirationSeconds: 3600,
    },
  });

  it("accepts a signed request", () => assert.deepEqual(check(id, csr()), []));
  it("refuses a request that is not a PEM CSR or whose signature fails", () => {
    const notPem = check(id, csr(), (o) => (o.spec.request = Buffer.from("hello").toString("base64")));
    assert.deepEqual(notPem, [["spec.request", "Invalid", "PEM block type must be CERTIFICATE REQUEST"]]);
    const pem = Buffer.from(request, "base64").toString();
    const body = pem.split("\n").slice(1, -2).join("");
    const der = Buffer.from(body, "base64");
    der[der.length - 5] = der[der.length - 5]! ^ 0xff;
    const tampered = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString("base64")}\n-----END CERTIFICATE REQUEST-----\n`;
    assert.equal(csrProblem(Buffer.from(tampered)) !== undefined, true);
  });
  it("refuses bad usages, signer names and durations", () => {
    assert.deepEqual(
      check(id, csr(), (o) => (o.spec.usages = [])),
      [["spec.usages", "Required", ""]],
    );
    assert.deepEqual(
      check(id, csr(), (o) => o.spec.usages.push("client auth")),
      [["spec.usages[2]", "Duplicate", ""]],
    );
    assert.deepEqual(
      check(id, csr(), (o) => (o.spec.signerName = "client")),
      [
        [
          "spec.signerName",
          "Invalid",
          "must be a fully qualified domain and path of the form 'example.com/signer-name'",
        ],
      ],
    );
    assert.deepEqual(
      check(id, csr(), (o) => (o.spec.signerName = "example/client")),
      [["spec.signerName", "Invalid", "should be a domain with at least two segments separated by dots"]],
    );
    assert.deepEqual(
      check(id, csr(), (o) => (o.spec.signerName = n.label("legacy-unknown"))),
      [["spec.signerName", "Invalid", "the legacy signerName is not allowed via this API version"]],
    );
    assert.deepEqual(
      check(id, csr(), (o) => (o.spec.expirationSeconds = 60)),
      [
        [
          "spec.expirationSeconds",
          "Invalid",
          "may not specify a duration less than 600 seconds (10 minutes)",
        ],
      ],
    );
  });
});
