import assert from "node:assert/strict";
import { test } from "node:test";
import { naming } from "../../../backends/naming/index.ts";
import { parseConfig } from "./config.ts";

const cluster = naming("cluster");
const apiVersion = (v: string) => `${cluster.group("pod-security.admission.config")}/${v}`;

test("no configuration: everything privileged:latest, no exemptions", () => {
  const c = parseConfig(undefined, cluster);
  for (const mode of ["enforce", "audit", "warn"] as const) {
    assert.deepEqual(c.defaults[mode], { level: "privileged", version: "latest" });
  }
  assert.equal(c.exemptions.namespaces.size, 0);
});

test("every served version of PodSecurityConfiguration, with defaulting of unset fields", () => {
  for (const v of ["v1", "v1beta1", "v1alpha1"]) {
    const c = parseConfig(
      {
        apiVersion: apiVersion(v),
        kind: "PodSecurityConfiguration",
        defaults: { enforce: "baseline", "enforce-version": "v1.25", warn: "restricted", audit: "" },
        exemptions: { usernames: ["ci"], namespaces: ["kube-system"], runtimeClasses: ["kata.io"] },
      },
      cluster,
    );
    assert.deepEqual(c.defaults, {
      enforce: { level: "baseline", version: 25 },
      warn: { level: "restricted", version: "latest" },
      audit: { level: "privileged", version: "latest" },
    });
    assert.ok(c.exemptions.usernames.has("ci"));
    assert.ok(c.exemptions.namespaces.has("kube-system"));
    assert.ok(c.exemptions.runtimeClasses.has("kata.io"));
  }
  // The kubernetes preset uses upstream's group.
  const k = parseConfig(
    { apiVersion: "pod-security.admission.config.k8s.io/v1", kind: "PodSecurityConfiguration" },
    naming("kubernetes"),
  );
  assert.equal(k.defaults.enforce.level, "privileged");
});

test("bad configurations fail at factory time with upstream's texts", () => {
  const bad: [unknown, RegExp][] = [
    ["text", /expected a PodSecurityConfiguration object/],
    [{ kind: "PodSecurityConfiguration" }, /Kind' is missing/],
    [{ apiVersion: "pod-security.admission.config.k8s.io/v1", kind: "PodSecurityConfiguration" }, /no kind/],
    [
      { apiVersion: apiVersion("v2"), kind: "PodSecurityConfiguration" },
      /no kind "PodSecurityConfiguration"/,
    ],
    [{ apiVersion: apiVersion("v1"), kind: "Other" }, /no kind "Other"/],
    [{ apiVersion: apiVersion("v1"), kind: "PodSecurityConfiguration", extra: 1 }, /unknown field "extra"/],
    [
      { apiVersion: apiVersion("v1"), kind: "PodSecurityConfiguration", defaults: { enforced: "baseline" } },
      /unknown field "defaults.enforced"/,
    ],
    [
      { apiVersion: apiVersion("v1"), kind: "PodSecurityConfiguration", defaults: { enforce: 3 } },
      /defaults.enforce/,
    ],
    [
      { apiVersion: apiVersion("v1"), kind: "PodSecurityConfiguration", exemptions: { usernames: "root" } },
      /exemptions.usernames: expected a list of strings/,
    ],
    [
      { apiVersion: apiVersion("v1"), kind: "PodSecurityConfiguration", defaults: { enforce: "strict" } },
      /^PodSecurity invalid: defaults.enforce: Invalid value: "strict": must be one of privileged, baseline, restricted$/,
    ],
    [
      {
        apiVersion: apiVersion("v1"),
        kind: "PodSecurityConfiguration",
        defaults: { "warn-version": "1.25", "audit-version": "v2.0" },
      },
      /^PodSecurity invalid: \[defaults.warn-version: Invalid value: "1.25": must be "latest" or "v1.x", defaults.audit-version: Invalid value: "v2.0": must be "latest" or "v1.x"\]$/,
    ],
    [
      {
        apiVersion: apiVersion("v1"),
        kind: "PodSecurityConfiguration",
        exemptions: { namespaces: ["a", "a"] },
      },
      /exemptions.namespaces\[1\]: Duplicate value: "a"/,
    ],
    [
      {
        apiVersion: apiVersion("v1"),
        kind: "PodSecurityConfiguration",
        exemptions: { namespaces: ["Bad_NS"] },
      },
      /exemptions.namespaces\[0\]: Invalid value: "Bad_NS": a lowercase RFC 1123 label/,
    ],
    [
      {
        apiVersion: apiVersion("v1"),
        kind: "PodSecurityConfiguration",
        exemptions: { runtimeClasses: ["x..y"] },
      },
      /exemptions.runtimeClasses\[0\]: Invalid value: "x..y"/,
    ],
    [
      { apiVersion: apiVersion("v1"), kind: "PodSecurityConfiguration", exemptions: { usernames: [""] } },
      /exemptions.usernames\[0\]: Invalid value: "": username must not be empty/,
    ],
  ];
  for (const [config, message] of bad) {
    assert.throws(
      () => parseConfig(config, cluster),
      (err: Error) => message.test(err.message),
      JSON.stringify(config),
    );
  }
});
