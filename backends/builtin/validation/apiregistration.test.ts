import "reflect-metadata"; // @peculiar/x509 needs the Reflect polyfill
import assert from "node:assert/strict";
import { webcrypto } from "node:crypto";
import { before, describe, it } from "node:test";
import * as x509 from "@peculiar/x509";
import { caBundleProblem, validateAPIService, validateAPIServiceStatus } from "./apiregistration.ts";
import { shape, variant } from "./fixtures.test-support.ts";
import type { Json } from "./util.ts";

// biome-ignore lint/suspicious/noExplicitAny: test edits reach deep into plain JSON fixtures.
type Any = any;

const b64 = (text: string) => Buffer.from(text).toString("base64");

describe("APIService validation", () => {
  let certPem = "";
  before(async () => {
    const alg = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };
    const keys = await webcrypto.subtle.generateKey(alg, true, ["sign", "verify"]);
    const cert = await x509.X509CertificateGenerator.createSelfSigned(
      { name: "CN=extension-ca", keys, signingAlgorithm: alg, notAfter: new Date(Date.now() + 86_400_000) },
      webcrypto,
    );
    certPem = cert.toString("pem");
  });

  const remote = (): Json => ({
    metadata: { name: "v1beta1.metrics.example.com" },
    spec: {
      group: "metrics.example.com",
      version: "v1beta1",
      groupPriorityMinimum: 100,
      versionPriority: 100,
      service: { namespace: "monitoring", name: "metrics", port: 443 },
      caBundle: b64(certPem),
    },
  });
  const local = (): Json => ({
    metadata: { name: "v1.apps" },
    spec: { group: "apps", version: "v1", groupPriorityMinimum: 17800, versionPriority: 15 },
  });
  const check = (base: Json, edit: (o: Any) => void = () => {}) =>
    shape(validateAPIService(variant(base, edit)));

  it("accepts a remote APIService with a CA bundle, a local one, and the core group's `v1.`", () => {
    assert.deepEqual(check(remote()), []);
    assert.deepEqual(check(local()), []);
    assert.deepEqual(
      check(local(), (o) => {
        o.metadata.name = "v1.";
        o.spec.group = "";
      }),
      [],
    );
    assert.deepEqual(
      check(remote(), (o) => {
        delete o.spec.caBundle;
        o.spec.insecureSkipTLSVerify = true;
      }),
      [],
    );
  });

  it("requires the name to be <version>.<group>", () => {
    assert.deepEqual(
      check(remote(), (o) => (o.metadata.name = "metrics")),
      [["metadata.name", "Invalid", 'must be `spec.version+"."+spec.group`: "v1beta1.metrics.example.com"']],
    );
    assert.deepEqual(
      check(remote(), (o) => (o.spec.version = "v1")),
      [["metadata.name", "Invalid", 'must be `spec.version+"."+spec.group`: "v1.metrics.example.com"']],
    );
    // A name that is no path segment is reported by the metadata checks, not twice.
    assert.deepEqual(
      check(remote(), (o) => (o.metadata.name = "a/b")),
      [],
    );
  });

  it("allows an empty group only for v1, and checks group and version formats", () => {
    assert.deepEqual(
      check(local(), (o) => {
        o.metadata.name = "v2.";
        o.spec.group = "";
        o.spec.version = "v2";
      }),
      [["spec.group", "Required", "only v1 may have an empty group and it better be legacy kube"]],
    );
    const badGroup = check(remote(), (o) => {
      o.metadata.name = "v1beta1.Metrics_Example";
      o.spec.group = "Metrics_Example";
    });
    assert.equal(badGroup.length, 1);
    assert.deepEqual(badGroup[0]!.slice(0, 2), ["spec.group", "Invalid"]);
    assert.match(badGroup[0]![2]!, /^a lowercase RFC 1123 subdomain must consist of/);
    const badVersion = check(remote(), (o) => {
      o.metadata.name = "1beta.metrics.example.com";
      o.spec.version = "1beta";
    });
    assert.equal(badVersion.length, 1);
    assert.deepEqual(badVersion[0]!.slice(0, 2), ["spec.version", "Invalid"]);
    assert.match(badVersion[0]![2]!, /^a DNS-1035 label must consist of lower case alphanumeric characters/);
    const noVersion = check(remote(), (o) => {
      o.metadata.name = ".metrics.example.com";
      o.spec.version = "";
    });
    assert.deepEqual(
      noVersion.map((e) => e[0]),
      ["spec.version"],
    );
  });

  it("keeps groupPriorityMinimum in 1..20000 and versionPriority in 1..1000", () => {
    const group = "must be positive and less than 20000";
    const version = "must be positive and less than 1000";
    assert.deepEqual(
      check(remote(), (o) => (o.spec.groupPriorityMinimum = 0)),
      [["spec.groupPriorityMinimum", "Invalid", group]],
    );
    assert.deepEqual(
      check(remote(), (o) => (o.spec.groupPriorityMinimum = 20001)),
      [["spec.groupPriorityMinimum", "Invalid", group]],
    );
    assert.deepEqual(
      check(remote(), (o) => (o.spec.groupPriorityMinimum = 20000)),
      [],
    );
    assert.deepEqual(
      check(remote(), (o) => (o.spec.groupPriorityMinimum = 1)),
      [],
    );
    assert.deepEqual(
      check(remote(), (o) => (o.spec.versionPriority = -3)),
      [["spec.versionPriority", "Invalid", version]],
    );
    assert.deepEqual(
      check(remote(), (o) => (o.spec.versionPriority = 1001)),
      [["spec.versionPriority", "Invalid", version]],
    );
    assert.deepEqual(
      check(remote(), (o) => (o.spec.versionPriority = 1000)),
      [],
    );
    const errs = validateAPIService(variant(remote(), (o: Any) => (o.spec.versionPriority = 1001)));
    assert.equal(errs[0]!.value, 1001);
  });

  it("refuses a caBundle or insecureSkipTLSVerify on a local APIService", () => {
    const errs = validateAPIService(
      variant(local(), (o: Any) => {
        o.spec.caBundle = b64(certPem);
        o.spec.insecureSkipTLSVerify = true;
      }),
    );
    assert.deepEqual(shape(errs), [
      ["spec.caBundle", "Invalid", "local APIServices may not have a caBundle"],
      ["spec.insecureSkipTLSVerify", "Invalid", "local APIServices may not have insecureSkipTLSVerify"],
    ]);
    assert.equal(errs[0]!.value, `${Buffer.byteLength(certPem)} bytes`);
  });

  it("requires the Service's namespace and name and a port in 1..65535", () => {
    assert.deepEqual(
      check(remote(), (o) => (o.spec.service = { port: 443 })),
      [
        ["spec.service.namespace", "Required", ""],
        ["spec.service.name", "Required", ""],
      ],
    );
    for (const port of [0, 65536, -1]) {
      assert.deepEqual(
        check(remote(), (o) => (o.spec.service.port = port)),
        [["spec.service.port", "Invalid", "port is not valid: must be between 1 and 65535, inclusive"]],
      );
    }
    assert.deepEqual(
      check(remote(), (o) => (o.spec.service.port = 65535)),
      [],
    );
  });

  it("refuses insecureSkipTLSVerify together with a caBundle", () => {
    assert.deepEqual(
      check(remote(), (o) => (o.spec.insecureSkipTLSVerify = true)),
      [["spec.insecureSkipTLSVerify", "Invalid", "may not be true if caBundle is present"]],
    );
  });

  it("requires a caBundle to hold PEM certificates", () => {
    assert.deepEqual(
      check(remote(), (o) => (o.spec.caBundle = b64("not a certificate"))),
      [["spec.caBundle", "Invalid", "must contain at least one PEM-encoded CERTIFICATE block"]],
    );
    const key = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n";
    assert.deepEqual(
      check(remote(), (o) => (o.spec.caBundle = b64(`${certPem}${key}`))),
      [["spec.caBundle", "Invalid", "PEM block type must be CERTIFICATE, not PRIVATE KEY"]],
    );
    const garbled = "-----BEGIN CERTIFICATE-----\nAAAAAAAA\n-----END CERTIFICATE-----\n";
    assert.deepEqual(
      check(remote(), (o) => (o.spec.caBundle = b64(garbled))),
      [["spec.caBundle", "Invalid", "x509: malformed certificate"]],
    );
    assert.equal(caBundleProblem(Buffer.from(`${certPem}${certPem}`)), undefined);
  });

  it("accepts only True, False and Unknown as a condition's status", () => {
    const status = (conditions: Json[]) => shape(validateAPIServiceStatus({ status: { conditions } }));
    assert.deepEqual(
      status([
        { type: "Available", status: "True" },
        { type: "Other", status: "Unknown" },
      ]),
      [],
    );
    assert.deepEqual(status([{ type: "Available", status: "False" }]), []);
    assert.deepEqual(
      status([
        { type: "Available", status: "True" },
        { type: "Other", status: "Maybe" },
      ]),
      [["status.conditions[1].status", "NotSupported", "True|False|Unknown"]],
    );
  });
});
