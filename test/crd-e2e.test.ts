// CustomResourceDefinitions with kubectl (oldest and newest supported): served once established,
// defaults, enum and CEL rules (the all() macro, messageExpression, transition rules), printer
// columns, status and scale subresources, explain, refusals at creation, and deletion taking the
// objects along.
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import {
  type GatewayProcess,
  type KubectlRun,
  kubectlRun,
  NO_KUBECTL,
  oldestAndNewestKubectl,
  startGateway,
} from "./support/gateway-process.ts";
import { eventually } from "./support/watch.ts";

const versions = oldestAndNewestKubectl();
let gw: GatewayProcess;

function crd(group: string, extraVersions = ""): string {
  return `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.${group}
spec:
  group: ${group}
  scope: Namespaced
  names: {plural: crontabs, singular: crontab, kind: CronTab, shortNames: [ct]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
    additionalPrinterColumns:
    - {name: Spec, type: string, jsonPath: .spec.cronSpec}
    - {name: Replicas, type: integer, jsonPath: .spec.replicas}
    - {name: Mode, type: string, jsonPath: .spec.mode, priority: 1}
    schema:
      openAPIV3Schema:
        type: object
        description: A job that runs on a schedule.
        properties:
          spec:
            type: object
            description: What to run and when.
            x-kubernetes-validations:
            - rule: "self.replicas <= self.maxReplicas"
              message: replicas must not exceed maxReplicas
            - rule: "self.tags.all(t, t.size() <= 10)"
              messageExpression: "'tags must be at most 10 characters, got ' + self.tags.filter(t, t.size() > 10).join(', ')"
            - rule: "self.mode == oldSelf.mode || oldSelf.mode == 'Slow'"
              message: mode may only change from Slow
            properties:
              cronSpec: {type: string, description: When to run.}
              image: {type: string}
              replicas: {type: integer, default: 1, minimum: 0}
              maxReplicas: {type: integer, default: 5}
              mode: {type: string, enum: [Fast, Slow], default: Slow}
              tags:
                type: array
                maxItems: 10
                default: []
                items: {type: string, maxLength: 64}
          status:
            type: object
            properties:
              replicas: {type: integer}
${extraVersions}`;
}

before(async () => {
  if (versions.length > 0) gw = await startGateway(["--api-naming=kubernetes"]);
});
after(async () => {
  await gw?.stop();
  if (gw) await rm(gw.dataDir, { recursive: true, force: true });
});

if (versions.length === 0) describe("custom resources with kubectl", { skip: NO_KUBECTL }, () => {});
for (const bin of versions) {
  const v = bin.split("kubectl.")[1] ?? "";
  const group = `v${v.replace(".", "")}.example.com`;
  const k = (args: string[], input?: string) => kubectlRun(bin, gw.kubeconfig, args, input);
  const ok = async (args: string[], input?: string) => {
    const r = await k(args, input);
    assert.equal(r.code, 0, `kubectl ${args.join(" ")}:\n${r.stdout}${r.stderr}`);
    return r;
  };
  const resource = `crontabs.${group}`;
  /** Runs `kubectl args` until it succeeds: a new definition is served once it is established. */
  const served = async (args: string[]): Promise<KubectlRun> => {
    let last: KubectlRun | undefined;
    const succeeds = async () => {
      last = await k(args);
      return last.code === 0;
    };
    await eventually(succeeds, 30_000, `kubectl ${args.join(" ")} to succeed`);
    return last as KubectlRun;
  };

  describe(`custom resources with kubectl ${v}`, () => {
    it("serves a new definition, with defaults, columns and explain", async () => {
      await ok(["apply", "-f", "-"], crd(group));
      await served(["get", resource]);
      const status = JSON.parse((await ok(["get", "crd", resource, "-o", "json"])).stdout).status;
      const conditions = Object.fromEntries(
        status.conditions.map((c: { type: string; status: string }) => [c.type, c.status]),
      );
      assert.equal(conditions.NamesAccepted, "True");
      assert.equal(conditions.Established, "True");
      await ok(
        ["apply", "-f", "-"],
        `{"apiVersion":"${group}/v1","kind":"CronTab","metadata":{"name":"nightly"},"spec":{"cronSpec":"0 3 * * *","image":"busybox","tags":["a"]}}`,
      );
      const object = JSON.parse((await ok(["get", resource, "nightly", "-o", "json"])).stdout);
      assert.deepEqual(object.spec, {
        cronSpec: "0 3 * * *",
        image: "busybox",
        tags: ["a"],
        replicas: 1,
        maxReplicas: 5,
        mode: "Slow",
      });
      assert.match(
        (await ok(["get", resource])).stdout,
        /^NAME\s+SPEC\s+REPLICAS\nnightly\s+0 3 \* \* \*\s+1\n/,
      );
      assert.match((await ok(["get", resource, "-o", "wide"])).stdout, /MODE[\s\S]*Slow/);
      const explained = (await ok(["explain", `${resource}.spec`])).stdout;
      assert.match(explained, /What to run and when/);
      assert.match(explained, /cronSpec\s+<string>/);
    });

    it("validates enum, CEL rules with all() and transition rules", async () => {
      const bad = await k(
        ["create", "-f", "-"],
        `{"apiVersion":"${group}/v1","kind":"CronTab","metadata":{"name":"bad"},"spec":{"replicas":9,"mode":"Medium","tags":["averyverylongtag"]}}`,
      );
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, /spec.mode: Unsupported value: "Medium": supported values: "Fast", "Slow"/);
      assert.match(bad.stderr, /replicas must not exceed maxReplicas/);
      assert.match(bad.stderr, /tags must be at most 10 characters, got averyverylongtag/);
      await ok(["patch", resource, "nightly", "--type=merge", "-p", '{"spec":{"mode":"Fast"}}']);
      const back = await k(["patch", resource, "nightly", "--type=merge", "-p", '{"spec":{"mode":"Slow"}}']);
      assert.notEqual(back.code, 0);
      assert.match(back.stderr, /mode may only change from Slow/);
    });

    it("writes status and scale through their subresources", async () => {
      await ok(["scale", resource, "nightly", "--replicas=3"]);
      assert.equal((await ok(["get", resource, "nightly", "-o", "jsonpath={.spec.replicas}"])).stdout, "3");
      const tooMany = await k(["scale", resource, "nightly", "--replicas=6"]);
      assert.match(tooMany.stderr, /replicas must not exceed maxReplicas/);
      const raw = await ok(["get", "--raw", `/apis/${group}/v1/namespaces/default/crontabs/nightly/scale`]);
      assert.equal(JSON.parse(raw.stdout).spec.replicas, 3);
      // The main resource leaves status alone.
      await ok(["patch", resource, "nightly", "--type=merge", "-p", '{"status":{"replicas":2}}']);
      assert.equal((await ok(["get", resource, "nightly", "-o", "jsonpath={.status.replicas}"])).stdout, "");
    });

    it("refuses non-structural schemas and rules that do not compile or cost too much", async () => {
      const base = (schema: string) => `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: bads.${group}}
spec:
  group: ${group}
  scope: Namespaced
  names: {plural: bads, singular: bad, kind: Bad}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
${schema}`;
      const nonStructural = await k(
        ["create", "-f", "-"],
        base(`        type: object
        properties:
          spec:
            properties:
              foo: {type: string}`),
      );
      assert.match(nonStructural.stderr, /must not be empty for specified object fields/);
      const noCompile = await k(
        ["create", "-f", "-"],
        base(`        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations: [{rule: "self.foo +"}]
            properties:
              foo: {type: string}`),
      );
      assert.match(
        noCompile.stderr,
        /x-kubernetes-validations\[0\]\.rule: Invalid value: .*compilation failed/,
      );
      const expensive = await k(
        ["create", "-f", "-"],
        base(`        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: "self.items.all(x, self.items.all(y, self.items.all(z, x + y + z != 'abc')))"
            properties:
              items: {type: array, items: {type: string}}`),
      );
      assert.match(expensive.stderr, /estimated rule cost exceeds budget by factor of/);
      const refusedCrd = await k(["get", "crd", `bads.${group}`]);
      assert.notEqual(refusedCrd.code, 0);
      assert.match(
        refusedCrd.stderr,
        /Error from server \(NotFound\): customresourcedefinitions\.\S+ "bads\.v\d+\.example\.com" not found/,
      );
    });

    it("deleting the definition deletes its objects and stops serving it", async () => {
      await ok(["delete", "crd", resource]);
      const gone = await k(["get", resource]);
      assert.notEqual(gone.code, 0);
      assert.match(gone.stderr, /the server doesn't have a resource type "crontabs"/);
      await ok(["apply", "-f", "-"], crd(group));
      const listed = await served(["get", resource, "-o", "name"]);
      assert.equal(listed.stdout.trim(), "", "objects of the deleted definition came back");
    });
  });
}
