// APIServices through the real gateway under both naming presets: the gateway's own group
// versions are registered as local, available APIServices (kubectl 1.33's table shows them), a
// custom resource group version gets one while its definition is served and loses it after, a
// deleted one comes back, and invalid APIServices are refused with 422 and upstream's messages.
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { basename } from "node:path";
import { after, before, describe, it } from "node:test";
import { naming as namingPreset } from "../backends/naming/index.ts";
import { ApiClient } from "./support/api-client.ts";
import { createServedCrd } from "./support/custom-resources.ts";
import {
  type GatewayProcess,
  kubectl,
  kubectlVersions,
  NO_KUBECTL,
  startGateway,
} from "./support/gateway-process.ts";
import { eventually } from "./support/watch.ts";

const binaries = kubectlVersions();
const kubectl133 = binaries.find((b) => basename(b) === "kubectl.1.33") ?? binaries.at(-1);

type Json = Record<string, unknown>;

for (const preset of ["cluster", "kubernetes"] as const) {
  describe(`APIServices (${preset} naming)`, { skip: kubectl133 ? false : NO_KUBECTL }, () => {
    const n = namingPreset(preset);
    const base = `/apis/${n.group("apiregistration")}/v1/apiservices`;
    const label = `kube-aggregator.${n.labelDomain}/automanaged`;
    let gw: GatewayProcess;
    let api: ApiClient;

    /**
     * NAME -> [SERVICE, AVAILABLE] from `kubectl get apiservices`. kubectl asks for upstream's
     * Table group, which only the kubernetes preset spells that way (README): under the cluster
     * preset the same server-side table is read with the preset's meta group.
     */
    const table = async (): Promise<Map<string, string[]>> => {
      if (preset === "cluster") {
        const reply = await api.call("GET", base, {
          accept: `application/json;as=Table;v=v1;g=${n.group("meta")}`,
        });
        assert.equal(reply.status, 200, reply.text);
        assert.deepEqual(
          (reply.body.columnDefinitions as { name: string }[]).map((c) => c.name),
          ["Name", "Service", "Available", "Age"],
        );
        return new Map(
          (reply.body.rows as { cells: string[] }[]).map(({ cells: [name, ...rest] }) => [
            name ?? "",
            rest.slice(0, 2),
          ]),
        );
      }
      const { stdout, code } = await kubectl(kubectl133 as string, gw.kubeconfig, ["get", "apiservices"]);
      assert.equal(code, 0, stdout);
      const [header, ...rows] = stdout.trim().split("\n");
      assert.match(header ?? "", /^NAME\s+SERVICE\s+AVAILABLE\s+AGE$/);
      return new Map(
        rows.map((row) => row.trim().split(/\s+/)).map(([name, ...rest]) => [name ?? "", rest.slice(0, 2)]),
      );
    };
    const get = async (name: string) => api.call("GET", `${base}/${encodeURIComponent(name)}`);

    before(async () => {
      gw = await startGateway(preset === "kubernetes" ? ["--api-naming=kubernetes"] : []);
      api = new ApiClient(gw.kubeconfig);
    });
    after(async () => {
      await api?.close();
      await gw?.stop();
      if (gw) await rm(gw.dataDir, { recursive: true, force: true });
    });

    it("lists the gateway's own group versions as local and available", async () => {
      const rows = await table();
      for (const name of [
        "v1.",
        "v1.apps",
        "v1.autoscaling",
        "v2.autoscaling",
        "v1.batch",
        "v1.policy",
        `v1.${n.group("rbac.authorization")}`,
        `v1.${n.group("apiextensions")}`,
        `v1.${n.group("authentication")}`,
        `v1beta1.${n.group("authentication")}`,
        `v1beta3.${n.group("flowcontrol")}`,
        `v1beta2.${n.group("flowcontrol")}`,
      ]) {
        assert.deepEqual(rows.get(name), ["Local", "True"], `${name} in\n${[...rows.keys()].join("\n")}`);
      }
      // Upstream's table has no entry for the aggregator's own group: it gets no APIService.
      assert.equal(rows.has(`v1.${n.group("apiregistration")}`), false);
      for (const [name, cells] of rows) assert.deepEqual(cells, ["Local", "True"], name);
      const apps = (await get("v1.apps")).body;
      assert.deepEqual(apps.metadata.labels, { [label]: "onstart" });
      assert.deepEqual(apps.spec, {
        group: "apps",
        version: "v1",
        groupPriorityMinimum: 17800,
        versionPriority: 15,
      });
      const core = (await get("v1.")).body;
      // The core group's empty name is left out, as Go's omitempty leaves it.
      assert.deepEqual(core.spec, {
        version: "v1",
        groupPriorityMinimum: 18000,
        versionPriority: 1,
      });
    });

    it("gives a custom resource group version an APIService while its definition is served", async () => {
      const group = `gadgets.${preset}.example.com`;
      const apiextensions = n.group("apiextensions");
      await createServedCrd(api, {
        apiextensions,
        group,
        kind: "Gadget",
        schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
      });
      await eventually(async () => (await table()).has(`v1.${group}`), 30_000, `v1.${group} listed`);
      assert.deepEqual((await table()).get(`v1.${group}`), ["Local", "True"]);
      const made = (await get(`v1.${group}`)).body;
      assert.deepEqual(made.metadata.labels, { [label]: "true" });
      assert.deepEqual(made.spec, { group, version: "v1", groupPriorityMinimum: 1000, versionPriority: 100 });
      const deleted = await api.call(
        "DELETE",
        `/apis/${apiextensions}/v1/customresourcedefinitions/gadgets.${group}`,
      );
      assert.equal(deleted.status, 200, deleted.text);
      await eventually(async () => (await get(`v1.${group}`)).status === 404, 30_000, `v1.${group} removed`);
    });

    it("brings a deleted built-in APIService back", async () => {
      const uid = (await get("v1.apps")).body.metadata.uid;
      const { stdout, code } = await kubectl(kubectl133 as string, gw.kubeconfig, [
        "delete",
        "apiservice",
        "v1.apps",
      ]);
      assert.equal(code, 0, stdout);
      await eventually(
        async () => {
          const again = await get("v1.apps");
          return again.status === 200 && again.body.metadata.uid !== uid;
        },
        30_000,
        "v1.apps back",
      );
      assert.deepEqual((await table()).get("v1.apps"), ["Local", "True"]);
    });

    it("refuses invalid APIServices with 422 and upstream's messages", async () => {
      const spec = (extra: Json = {}): Json => ({
        group: "metrics.example.com",
        version: "v1beta1",
        groupPriorityMinimum: 100,
        versionPriority: 100,
        service: { namespace: "monitoring", name: "metrics" },
        insecureSkipTLSVerify: true,
        ...extra,
      });
      const create = (name: string, s: Json) =>
        api.call("POST", base, {
          body: {
            apiVersion: `${n.group("apiregistration")}/v1`,
            kind: "APIService",
            metadata: { name },
            spec: s,
          },
        });
      const cases: [string, Json, [string, string][]][] = [
        [
          "v1beta1.wrong.example.com",
          spec(),
          [["metadata.name", 'must be `spec.version+"."+spec.group`: "v1beta1.metrics.example.com"']],
        ],
        [
          "v1beta1.metrics.example.com",
          spec({ groupPriorityMinimum: 20001, versionPriority: 0 }),
          [
            ["spec.groupPriorityMinimum", "must be positive and less than 20000"],
            ["spec.versionPriority", "must be positive and less than 1000"],
          ],
        ],
        [
          "v1beta1.metrics.example.com",
          spec({ caBundle: Buffer.from("not pem").toString("base64") }),
          [
            ["spec.insecureSkipTLSVerify", "may not be true if caBundle is present"],
            ["spec.caBundle", "must contain at least one PEM-encoded CERTIFICATE block"],
          ],
        ],
        [
          "v1beta1.metrics.example.com",
          spec({ service: { port: 70000 } }),
          [
            ["spec.service.namespace", ""],
            ["spec.service.name", ""],
            ["spec.service.port", "port is not valid: must be between 1 and 65535, inclusive"],
          ],
        ],
        [
          "v1.local.example.com",
          {
            group: "local.example.com",
            version: "v1",
            groupPriorityMinimum: 1,
            versionPriority: 1,
            insecureSkipTLSVerify: true,
          },
          [["spec.insecureSkipTLSVerify", "local APIServices may not have insecureSkipTLSVerify"]],
        ],
        [
          "v2.",
          { group: "", version: "v2", groupPriorityMinimum: 1, versionPriority: 1 },
          [["spec.group", "only v1 may have an empty group and it better be legacy kube"]],
        ],
      ];
      for (const [name, s, causes] of cases) {
        const reply = await create(name, s);
        assert.equal(reply.status, 422, reply.text);
        assert.equal(reply.body.kind, "Status");
        assert.equal(reply.body.reason, "Invalid");
        assert.deepEqual(
          (reply.body.details.causes as { field: string; message: string }[]).map((c) => [
            c.field,
            c.message.replace(/^(Invalid value: .*?: |Required value: ?|Required value$)/, ""),
          ]),
          causes,
          reply.text,
        );
        assert.equal((await get(name)).status, 404, "nothing stored");
      }
      // A valid remote APIService with a Service is accepted (its port defaulted) and left alone.
      const ok = await create("v1beta1.metrics.example.com", spec());
      assert.equal(ok.status, 201, ok.text);
      assert.equal(ok.body.spec.service.port, 443);
      assert.equal(ok.body.metadata.labels, undefined);
    });
  });
}
