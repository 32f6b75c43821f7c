// Real clients reading the gateway's Protobuf answers: kubectl (its typed commands ask for
// Protobuf first; `-v=8` logs the answer's type), and a @kubernetes/client-node program that
// fetches with its kubeconfig credentials and decodes with protobufjs and upstream's IDL.
import assert from "node:assert/strict";
import { request } from "node:https";
import { after, before, describe, it } from "node:test";
import { naming } from "../backends/naming/index.ts";
import { loadIdl, skipWithoutIdl } from "../gateway/protobuf/upstream-idl.ts";
import {
  type GatewayProcess,
  kubectlRun,
  kubectlVersions,
  NO_KUBECTL,
  startGateway,
} from "./support/gateway-process.ts";

const PB = naming("kubernetes").protobufMediaType;
const newest = kubectlVersions().at(-1);

/** The Content-Type lines of the answers kubectl logged at -v=8. */
function answerTypes(stderr: string): string[] {
  const out: string[] = [];
  let inResponse = false;
  for (const line of stderr.split("\n")) {
    if (line.includes('"Response"')) inResponse = true;
    else if (inResponse && /^\s*Content-Type:/.test(line)) {
      out.push(line.trim().slice("Content-Type:".length).trim());
      inResponse = false;
    }
  }
  return out;
}

describe("kubectl reads Protobuf answers (kubernetes naming)", { skip: newest ? false : NO_KUBECTL }, () => {
  let gw: GatewayProcess;
  const bin = newest as string;

  before(async () => {
    gw = await startGateway(["--api-naming=kubernetes"]);
  });
  after(async () => {
    await gw?.stop();
  });

  it("create and describe: the answers are Protobuf, and kubectl reads them", async () => {
    const created = await kubectlRun(bin, gw.kubeconfig, [
      "create",
      "configmap",
      "pb",
      "--from-literal=a=b",
      "-v=8",
    ]);
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, /configmap\/pb created/);
    assert.ok(answerTypes(created.stderr).includes(PB), `no Protobuf answer:\n${created.stderr}`);
    // describe reads through the typed client: a GET answered in Protobuf, printed from it.
    const described = await kubectlRun(bin, gw.kubeconfig, ["describe", "configmap", "pb", "-v=8"]);
    assert.equal(described.code, 0, described.stderr);
    assert.match(described.stdout, /Name:\s+pb/);
    assert.match(described.stdout, /a:\n----\nb/);
    assert.ok(answerTypes(described.stderr).includes(PB), `no Protobuf answer:\n${described.stderr}`);
  });

  it("create token: the TokenRequest answer in Protobuf", async () => {
    const sa = await kubectlRun(bin, gw.kubeconfig, ["create", "serviceaccount", "robot"]);
    assert.equal(sa.code, 0, sa.stderr);
    const token = await kubectlRun(bin, gw.kubeconfig, ["create", "token", "robot", "-v=8"]);
    assert.equal(token.code, 0, token.stderr);
    assert.match(token.stdout, /^ey[\w-]+\.[\w-]+\.[\w-]+\s*$/);
    assert.ok(answerTypes(token.stderr).includes(PB), `no Protobuf answer:\n${token.stderr}`);
  });
});

describe("a client-node program decodes a Protobuf answer with upstream's IDL", {
  skip: skipWithoutIdl,
}, () => {
  let gw: GatewayProcess;

  before(async () => {
    gw = await startGateway(["--api-naming=kubernetes"]);
  });
  after(async () => {
    await gw?.stop();
  });

  it("reads the same ConfigMap as its typed JSON client", async () => {
    const k8s = await import("@kubernetes/client-node");
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(gw.kubeconfig);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    await core.createNamespacedConfigMap({
      namespace: "default",
      body: { metadata: { name: "read-me", labels: { app: "x" } }, data: { greeting: "hello" } },
    });
    const viaJson = await core.readNamespacedConfigMap({ namespace: "default", name: "read-me" });

    // The same object over the client's credentials, asking for Protobuf as client-go does.
    const url = new URL(`${kc.getCurrentCluster()?.server}/api/v1/namespaces/default/configmaps/read-me`);
    const options: import("node:https").RequestOptions = {
      hostname: url.hostname,
      port: url.port,
      path: url.pathname,
      headers: { accept: `${PB}, application/json` },
    };
    await kc.applyToHTTPSOptions(options);
    const { contentType, body } = await new Promise<{ contentType: string; body: Buffer }>(
      (resolve, reject) => {
        request(options, (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () =>
            resolve({ contentType: String(res.headers["content-type"]), body: Buffer.concat(chunks) }),
          );
          res.on("error", reject);
        })
          .on("error", reject)
          .end();
      },
    );
    assert.equal(contentType, PB);

    const root = loadIdl();
    assert.deepEqual([...body.subarray(0, 4)], [0x6b, 0x38, 0x73, 0x00]);
    const unknown = root
      .lookupType("k8s.io.apimachinery.pkg.runtime.Unknown")
      .decode(body.subarray(4)) as unknown as {
      typeMeta: { apiVersion: string; kind: string };
      raw: Uint8Array;
    };
    assert.equal(unknown.typeMeta.apiVersion, "v1");
    assert.equal(unknown.typeMeta.kind, "ConfigMap");
    const cmType = root.lookupType("k8s.io.api.core.v1.ConfigMap");
    const cm = cmType.toObject(cmType.decode(unknown.raw), { longs: Number }) as {
      metadata: { name: string; uid: string; resourceVersion: string; labels: Record<string, string> };
      data: Record<string, string>;
    };
    assert.equal(cm.metadata.name, "read-me");
    assert.equal(cm.metadata.uid, viaJson.metadata?.uid);
    assert.equal(cm.metadata.resourceVersion, viaJson.metadata?.resourceVersion);
    assert.deepEqual({ ...cm.metadata.labels }, { app: "x" });
    assert.deepEqual({ ...cm.data }, { greeting: "hello" });
  });
});
