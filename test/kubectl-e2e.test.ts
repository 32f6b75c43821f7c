// kubectl, oldest and newest supported, against the server started as README says, with the
// generated admin.kubeconfig.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import {
  type GatewayProcess,
  kubectl,
  NO_KUBECTL,
  oldestAndNewestKubectl,
  startGateway,
} from "./support/gateway-process.ts";
import { eventually } from "./support/watch.ts";

const versions = oldestAndNewestKubectl();
let gw: GatewayProcess;

before(async () => {
  if (versions.length > 0) gw = await startGateway();
});
after(async () => {
  await gw?.stop();
  if (gw) await rm(gw.dataDir, { recursive: true, force: true });
});

if (versions.length === 0) describe("kubectl end to end", { skip: NO_KUBECTL }, () => {});
for (const bin of versions) {
  const v = bin.split("kubectl.")[1] ?? "";
  const ns = `e2e-${v.replace(".", "-")}`;
  const k = (...args: string[]) => kubectl(bin, gw.kubeconfig, args);
  const ok = async (...args: string[]) => {
    const r = await k(...args);
    assert.equal(r.code, 0, `kubectl ${args.join(" ")}:\n${r.stdout}`);
    return r.stdout;
  };

  describe(`kubectl ${v}`, () => {
    it("version and api-resources", async () => {
      assert.match(await ok("version"), /Server Version: .*v1\.27\./);
      const resources = await ok("api-resources");
      for (const r of ["configmaps", "namespaces", "secrets", "serviceaccounts", "events"])
        assert.match(resources, new RegExp(`^${r}\\s`, "m"));
    });

    it("create, get, list in chunks with selectors, dry run, delete", async () => {
      await ok("create", "namespace", ns);
      for (let i = 0; i < 5; i++) {
        await ok("create", "configmap", `cm${i}`, "-n", ns, `--from-literal=i=${i}`);
        await ok("label", "configmap", `cm${i}`, "-n", ns, `parity=${i % 2 ? "odd" : "even"}`);
      }
      await eventually(
        async () => (await k("get", "cm", "cluster-root-ca.crt", "-n", ns)).code === 0,
        20_000,
        "the namespace's root CA ConfigMap",
      );
      const chunked = await ok("get", "configmaps", "-n", ns, "--chunk-size=2", "-o", "name");
      // The namespace's root CA ConfigMap is listed too, first by name.
      assert.deepEqual(chunked.trim().split("\n"), [
        "configmap/cluster-root-ca.crt",
        ...[0, 1, 2, 3, 4].map((i) => `configmap/cm${i}`),
      ]);
      assert.deepEqual(
        (await ok("get", "cm", "-n", ns, "-l", "parity=odd", "-o", "name")).trim().split("\n"),
        ["configmap/cm1", "configmap/cm3"],
      );
      assert.equal(
        (await ok("get", "cm", "-n", ns, "--field-selector", "metadata.name=cm2", "-o", "name")).trim(),
        "configmap/cm2",
      );
      assert.match(await ok("get", "cm", "cm0", "-n", ns, "-o", "jsonpath={.data.i}"), /^0$/);
      assert.match(
        await ok("create", "configmap", "ghost", "-n", ns, "--from-literal=a=b", "--dry-run=server"),
        /created \(server dry run\)/,
      );
      const ghost = await k("get", "cm", "ghost", "-n", ns);
      assert.notEqual(ghost.code, 0);
      assert.match(ghost.stdout, /Error from server \(NotFound\): configmaps "ghost" not found/);
      assert.match(await ok("delete", "configmap", "cm4", "-n", ns), /configmap "cm4" deleted/);
      const missing = await k("get", "cm", "cm4", "-n", ns);
      assert.match(missing.stdout, /Error from server \(NotFound\): configmaps "cm4" not found/);
    });

    it("replace with a stale resourceVersion conflicts", async () => {
      const yaml = await ok("get", "cm", "cm0", "-n", ns, "-o", "yaml");
      const file = join(gw.dataDir, `stale-${v}.yaml`);
      await writeFile(file, yaml.replace('i: "0"', 'i: "changed"'));
      await ok("patch", "cm", "cm0", "-n", ns, "--type=merge", "-p", '{"data":{"i":"moved"}}');
      const stale = await k("replace", "-f", file);
      assert.notEqual(stale.code, 0);
      assert.match(
        stale.stdout,
        /Operation cannot be fulfilled on configmaps "cm0": the object has been modified/,
      );
    });

    it("get -w streams changes", async () => {
      const child = spawn(bin, [`--kubeconfig=${gw.kubeconfig}`, "get", "cm", "-n", ns, "-w", "-o", "name"], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      child.stdout.on("data", (d) => {
        out += d;
      });
      try {
        await eventually(() => out.includes("configmap/cm0"), 10_000, "initial listing");
        await ok("create", "configmap", "watched", "-n", ns, "--from-literal=a=b");
        await eventually(() => out.includes("configmap/watched"), 10_000, "the new object in the watch");
      } finally {
        child.kill("SIGTERM");
      }
    });

    it("deletes a namespace with its content", async () => {
      assert.match(await ok("delete", "namespace", ns), new RegExp(`namespace "${ns}" deleted`));
      const gone = await k("get", "namespace", ns);
      assert.match(gone.stdout, /NotFound/);
      assert.match(await ok("get", "cm", "-A", "-o", "name"), /^(?![\s\S]*cm0)/);
    });
  });
}
