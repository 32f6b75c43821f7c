import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { Registry } from "prom-client";
import { naming } from "../../backends/naming/index.ts";
import {
  AdmissionError,
  type Attributes,
  forbidden,
  type PluginRegistration,
  type Reinvocation,
} from "../../plugins/admission/index.ts";
import { toApiError } from "../request/api-error.ts";
import { buildAdmissionChain } from "./chain.ts";
import { loadAdmissionConfig } from "./config-file.ts";
import { AdmissionPluginError, DEFAULT_ENABLED, PLUGIN_ORDER, resolvePlugins } from "./plugins.ts";
import { startAdmissionTest } from "./testing.ts";

test("the plugin set: upstream's defaults, plus enabled, minus disabled, always in run order", () => {
  const defaults = resolvePlugins([], []);
  assert.deepEqual(new Set(defaults), DEFAULT_ENABLED);
  assert.deepEqual(
    defaults,
    PLUGIN_ORDER.filter((n) => DEFAULT_ENABLED.has(n)),
  );
  const changed = resolvePlugins(["EventRateLimit", "NamespaceExists"], ["LimitRanger", "ResourceQuota"]);
  assert.ok(changed.includes("EventRateLimit") && changed.includes("NamespaceExists"));
  assert.ok(!changed.includes("LimitRanger") && !changed.includes("ResourceQuota"));
  assert.ok(
    changed.indexOf("NamespaceExists") < changed.indexOf("EventRateLimit"),
    "flag order does not matter",
  );
  assert.ok(
    changed.indexOf("MutatingAdmissionWebhook") < changed.indexOf("ValidatingAdmissionWebhook"),
    "webhooks last",
  );
  assert.throws(() => resolvePlugins(["Nope"], []), /unknown admission plugin: Nope/);
  assert.throws(() => resolvePlugins(["Priority"], ["Priority"]), AdmissionPluginError);
});

test("the chain runs mutating then validating plugins in order, and reports its steps", async () => {
  const t = await startAdmissionTest();
  try {
    const seen: string[] = [];
    const reg = (name: string, refuse?: string): PluginRegistration => ({
      name,
      factory: (env) => ({
        name,
        admit(a: Attributes) {
          seen.push(`admit ${name} ${JSON.stringify(env.configuration ?? null)}`);
          (a.object as { metadata: { labels: Record<string, string> } }).metadata.labels[name] = "x";
        },
        validate(a: Attributes) {
          seen.push(`validate ${name}`);
          if (refuse && a.name === refuse) throw forbidden(a, `${name} says no`);
        },
      }),
    });
    const metrics = new Registry();
    const chain = await buildAdmissionChain({
      enabled: ["B", "A"],
      registrations: new Map([
        ["A", reg("A", "bad")],
        ["B", reg("B")],
      ]),
      configurations: new Map([["A", { level: 1 }]]),
      env: { ...t.env(), metrics },
    });
    assert.deepEqual(chain.names, ["B", "A"]);
    const pod = { metadata: { name: "p", namespace: "default", labels: {} } };
    const a = t.attributes({ operation: "CREATE", resource: "pods", object: pod });
    await chain.admit(a);
    await chain.validate(a);
    assert.deepEqual(seen, ["admit B null", 'admit A {"level":1}', "validate B", "validate A"]);
    assert.deepEqual(pod.metadata.labels, { B: "x", A: "x" });

    const bad = t.attributes({
      operation: "CREATE",
      resource: "pods",
      object: { metadata: { name: "bad", labels: {} } },
    });
    await assert.rejects(chain.validate(bad), (err: unknown) => {
      assert.ok(err instanceof AdmissionError);
      const status = toApiError(err).toStatus();
      assert.equal(status.code, 403);
      assert.equal(status.reason, "Forbidden");
      assert.equal(status.message, 'pods "bad" is forbidden: A says no');
      return true;
    });
    const text = await metrics.metrics();
    assert.match(
      text,
      /apiserver_admission_step_admission_duration_seconds_count\{type="admit",operation="CREATE",rejected="false"\} 1/,
    );
    assert.match(
      text,
      /apiserver_admission_step_admission_duration_seconds_count\{type="validate",operation="CREATE",rejected="true"\} 1/,
    );
    await chain.close();

    await assert.rejects(
      buildAdmissionChain({
        enabled: ["A", "Missing"],
        registrations: new Map([["A", reg("A")]]),
        configurations: new Map(),
        env: t.env(),
      }),
      /admission plugin Missing is not available/,
    );
    await assert.rejects(
      buildAdmissionChain({
        enabled: ["A"],
        registrations: new Map([["A", reg("A")]]),
        configurations: new Map([["Stranger", {}]]),
        env: t.env(),
      }),
      /names an unknown plugin: Stranger/,
    );
  } finally {
    await t.stop();
  }
});

test("AdmissionConfiguration: inline and by path; bad files are clear errors", async () => {
  const dir = await mkdtemp(join(tmpdir(), "admission-config-"));
  const names = naming("cluster");
  try {
    await writeFile(
      join(dir, "limits.yaml"),
      "kind: Configuration\nlimits:\n- type: Server\n  qps: 5\n  burst: 10\n",
    );
    const main = join(dir, "admission.yaml");
    await writeFile(
      main,
      [
        "apiVersion: apiserver.config.cluster.io/v1",
        "kind: AdmissionConfiguration",
        "plugins:",
        "- name: EventRateLimit",
        "  path: limits.yaml",
        "- name: PodSecurity",
        "  configuration:",
        "    defaults: {enforce: baseline}",
      ].join("\n"),
    );
    const loaded = await loadAdmissionConfig(main, names);
    assert.deepEqual(loaded.get("EventRateLimit"), {
      kind: "Configuration",
      limits: [{ type: "Server", qps: 5, burst: 10 }],
    });
    assert.deepEqual(loaded.get("PodSecurity"), { defaults: { enforce: "baseline" } });

    const cases: [string, RegExp][] = [
      ["kind: Other\napiVersion: apiserver.config.cluster.io/v1\n", /expected kind AdmissionConfiguration/],
      [
        "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\n",
        /expected kind AdmissionConfiguration/,
      ],
      ["{ not yaml", /not YAML or JSON/],
      [
        "apiVersion: apiserver.config.cluster.io/v1\nkind: AdmissionConfiguration\nplugins: 3\n",
        /plugins must be a list/,
      ],
      [
        "apiVersion: apiserver.config.cluster.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: A\n",
        /path or configuration is required/,
      ],
      [
        "apiVersion: apiserver.config.cluster.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: A\n  path: missing.yaml\n",
        /cannot read .*missing.yaml/,
      ],
      [
        "apiVersion: apiserver.config.cluster.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: A\n  configuration: {}\n- name: A\n  configuration: {}\n",
        /A is configured twice/,
      ],
    ];
    for (const [text, error] of cases) {
      await writeFile(main, text);
      await assert.rejects(loadAdmissionConfig(main, names), error);
    }
    await assert.rejects(loadAdmissionConfig(join(dir, "absent.yaml"), names), /cannot read/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("a plugin's request for reinvocation runs every mutating plugin once more, and only once", async () => {
  const t = await startAdmissionTest();
  try {
    const passes: string[] = [];
    const plugin = (name: string, asks: boolean): PluginRegistration => ({
      name,
      factory: () => ({
        name,
        admit(_a: Attributes, reinvocation?: Reinvocation) {
          passes.push(`${name} ${reinvocation?.reinvoking ? "again" : "first"}`);
          if (asks) reinvocation?.request();
        },
      }),
    });
    const chain = await buildAdmissionChain({
      enabled: ["Builtin", "Hooks"],
      registrations: new Map([
        ["Builtin", plugin("Builtin", false)],
        ["Hooks", plugin("Hooks", true)],
      ]),
      configurations: new Map(),
      env: t.env(),
    });
    await chain.admit(
      t.attributes({ operation: "CREATE", resource: "pods", object: { metadata: { name: "p" } } }),
    );
    assert.deepEqual(passes, ["Builtin first", "Hooks first", "Builtin again", "Hooks again"]);
    passes.length = 0;
    const quiet = await buildAdmissionChain({
      enabled: ["Builtin"],
      registrations: new Map([["Builtin", plugin("Builtin", false)]]),
      configurations: new Map(),
      env: t.env(),
    });
    await quiet.admit(
      t.attributes({ operation: "CREATE", resource: "pods", object: { metadata: { name: "p" } } }),
    );
    assert.deepEqual(passes, ["Builtin first"], "no second pass unless asked");
    await chain.close();
    await quiet.close();
  } finally {
    await t.stop();
  }
});
