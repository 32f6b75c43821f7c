import assert from "node:assert/strict";
import { test } from "node:test";
import { startAdmissionTest } from "../../../gateway/admission/testing.ts";
import { AdmissionError, type JsonObject, type Operation } from "../index.ts";
import { parseNodeSelector, registration } from "./index.ts";

const KEY = "scheduler.alpha.cluster.io/node-selector";

const pod = (ns: string, nodeSelector?: unknown): JsonObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", namespace: ns },
  spec: { containers: [{ name: "c", image: "i" }], ...(nodeSelector === undefined ? {} : { nodeSelector }) },
});

test("parseNodeSelector: upstream's format and errors", () => {
  assert.deepEqual(parseNodeSelector(""), {});
  assert.deepEqual(parseNodeSelector(" a = b ,c/d=e"), { a: "b", "c/d": "e" });
  assert.deepEqual(parseNodeSelector("a="), { a: "" });
  assert.throws(() => parseNodeSelector("a"), /^Error: invalid selector: \[a\]$/);
  assert.throws(() => parseNodeSelector("a=b=c"), /invalid selector: \[a b c\]/);
  assert.throws(() => parseNodeSelector("a b=c"), /key: Invalid value: "a b": name part must consist of/);
  assert.throws(() => parseNodeSelector("a=b c"), /value: Invalid value: "b c": a valid label must be/);
});

test("PodNodeSelector: merges, conflicts and whitelists", async () => {
  const t = await startAdmissionTest();
  try {
    const ns = async (name: string, annotations: Record<string, string> = {}) =>
      t.create("namespaces", undefined, {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name, annotations },
      });
    await ns("plain");
    await ns("annotated", { [KEY]: "env=prod,tier=web" });
    await ns("empty", { [KEY]: "" });
    await ns("listed", { [KEY]: "" });
    await ns("broken", { [KEY]: "env" });
    const configuration = {
      podNodeSelectorPluginConfig: { clusterDefaultNodeSelector: "region=west", listed: "env=dev,zone=a" },
    };
    const plugin = await registration.factory(t.env({ configuration }));
    const cases: {
      name: string;
      ns: string;
      selector?: unknown;
      op?: Operation;
      want?: unknown;
      error?: [number, string];
    }[] = [
      { name: "cluster default", ns: "plain", want: { region: "west" } },
      {
        name: "cluster default merged",
        ns: "plain",
        selector: { disk: "ssd" },
        want: { region: "west", disk: "ssd" },
      },
      {
        name: "namespace annotation wins over cluster default",
        ns: "annotated",
        selector: { env: "prod" },
        want: { env: "prod", tier: "web" },
      },
      {
        name: "conflict with namespace",
        ns: "annotated",
        selector: { env: "dev" },
        error: [
          403,
          'pods "p" is forbidden: pod node label selector conflicts with its namespace node label selector',
        ],
      },
      { name: "empty annotation: nothing added", ns: "empty", want: undefined },
      { name: "whitelisted", ns: "listed", selector: { env: "dev" }, want: { env: "dev" } },
      {
        name: "not whitelisted",
        ns: "listed",
        selector: { env: "prod" },
        error: [
          403,
          'pods "p" is forbidden: pod node label selector labels conflict with its namespace whitelist',
        ],
      },
      { name: "malformed annotation", ns: "broken", error: [400, "invalid selector: [env]"] },
      {
        name: "garbage node selector",
        ns: "plain",
        selector: { a: 1 },
        error: [400, "spec.nodeSelector must be a map of strings"],
      },
      { name: "missing namespace", ns: "gone", error: [404, 'namespaces "gone" not found'] },
      {
        name: "updates are ignored",
        ns: "annotated",
        op: "UPDATE",
        selector: { env: "dev" },
        want: { env: "dev" },
      },
    ];
    for (const c of cases) {
      const object = pod(c.ns, c.selector);
      const op = c.op ?? "CREATE";
      const a = t.attributes({
        operation: op,
        resource: "pods",
        object,
        ...(op === "UPDATE" ? { oldObject: object } : {}),
      });
      if (c.error) {
        const [code, message] = c.error;
        await assert.rejects(
          async () => {
            await plugin.admit?.(a);
          },
          (err: unknown) => err instanceof AdmissionError && err.code === code && err.message === message,
          c.name,
        );
        continue;
      }
      await plugin.admit?.(a);
      await plugin.validate?.(a);
      assert.deepEqual((object.spec as JsonObject).nodeSelector, c.want, c.name);
    }
    // The validating phase alone catches a selector a later mutation made conflicting.
    const late = pod("listed", { zone: "b" });
    await assert.rejects(
      async () => plugin.validate?.(t.attributes({ operation: "CREATE", resource: "pods", object: late })),
      /conflict with its namespace whitelist/,
    );
  } finally {
    await t.stop();
  }
});

test("PodNodeSelector: bad configuration fails at factory time", async () => {
  const t = await startAdmissionTest();
  try {
    const bad: [unknown, RegExp][] = [
      ["x", /expected an object/],
      [{ podNodeSelectorPluginConfig: [] }, /expected a map/],
      [{ podNodeSelectorPluginConfig: { ns: 3 } }, /podNodeSelectorPluginConfig.ns: expected a string/],
      [{ podNodeSelectorPluginConfig: { clusterDefaultNodeSelector: "a=b=c" } }, /invalid selector/],
    ];
    for (const [configuration, message] of bad) {
      await assert.rejects(async () => registration.factory(t.env({ configuration })), message);
    }
    await registration.factory(t.env());
  } finally {
    await t.stop();
  }
});
