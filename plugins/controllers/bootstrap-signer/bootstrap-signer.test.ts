// The bootstrap signer against a real gateway process, as an API client with the admin's
// credentials (the gateway's own signer runs only with bootstrap tokens enabled, so this one is
// alone). Its clock is the test's: a token expires when the test moves the clock past it.
// Signatures are checked here with node:crypto's HMAC, not with the code under test.
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { rm } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import { naming } from "../../../backends/naming/index.ts";
import { type GatewayProcess, startGateway } from "../../../test/support/gateway-process.ts";
import { eventually } from "../../../test/support/watch.ts";
import { ControllerClient } from "../client.ts";
import { BootstrapSigner } from "./bootstrap-signer.ts";

const names = naming("cluster");
const SECRETS = `/api/v1/namespaces/${names.systemNamespace}/secrets`;
const CLUSTER_INFO = `/api/v1/namespaces/${names.publicNamespace}/configmaps/cluster-info`;
const TOKEN_TYPE = names.label("token", "bootstrap");
const HOUR = 3_600_000;

let gw: GatewayProcess;
let client: ControllerClient;
let clock = Date.now();
const stop = new AbortController();
const errors: string[] = [];
let run: Promise<void>;

const b64 = (s: string) => Buffer.from(s).toString("base64");
const rfc3339 = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");

/** A detached JWS as a joining node checks it: header alg/kid, HMAC-SHA256 keyed by the secret. */
function verifies(sig: string, content: string, id: string, secret: string): boolean {
  const [header, payload, mac] = sig.split(".");
  if (payload !== "" || header === undefined || mac === undefined) return false;
  const h = JSON.parse(Buffer.from(header, "base64url").toString()) as Record<string, unknown>;
  if (h.alg !== "HS256" || h.kid !== id || Object.keys(h).length !== 2) return false;
  const key = Buffer.alloc(Math.max(32, Buffer.byteLength(secret)));
  key.write(secret);
  const expected = createHmac("sha256", key)
    .update(`${header}.${Buffer.from(content).toString("base64url")}`)
    .digest("base64url");
  return expected === mac;
}

async function token(
  id: string,
  secret: string,
  data: Record<string, string>,
  name = `bootstrap-token-${id}`,
) {
  const reply = await client.call("POST", SECRETS, {
    metadata: { name },
    type: TOKEN_TYPE,
    data: Object.fromEntries(
      Object.entries({ "token-id": id, "token-secret": secret, ...data }).map(([k, v]) => [k, b64(v)]),
    ),
  });
  assert.equal(reply.status, 201, JSON.stringify(reply.body));
}

async function clusterInfo(): Promise<Record<string, string>> {
  return (await client.must("GET", CLUSTER_INFO)).body.data;
}

/** Changes cluster-info's data as a client would: read, change, write, again if the signer wrote in between. */
async function editClusterInfo(
  edit: (data: Record<string, string>) => Record<string, string>,
): Promise<void> {
  for (;;) {
    const cm = (await client.must("GET", CLUSTER_INFO)).body;
    const reply = await client.call("PUT", CLUSTER_INFO, { ...cm, data: edit(cm.data) });
    if (reply.status === 409) continue;
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    return;
  }
}

const signatures = async () =>
  Object.keys(await clusterInfo())
    .filter((k) => k.startsWith("jws-kubeconfig-"))
    .sort();

before(async () => {
  gw = await startGateway();
  client = ControllerClient.fromKubeconfig(gw.kubeconfig);
  // The gateway wrote cluster-info on its first start; the signer finds it there.
  await eventually(
    async () => (await client.call("GET", CLUSTER_INFO)).status === 200,
    10_000,
    "cluster-info",
  );
  const signer = new BootstrapSigner(
    ControllerClient.fromKubeconfig(gw.kubeconfig),
    names,
    (err, context) => errors.push(`${context}: ${err}`),
    { recheckMs: 50, now: () => clock },
  );
  run = signer.run(stop.signal);
  await eventually(() => signer.synced, 10_000, "signer sync");
});

after(async () => {
  stop.abort();
  await run;
  await client?.close();
  await gw?.stop();
  if (gw) await rm(gw.dataDir, { recursive: true, force: true });
  assert.deepEqual(errors, []);
});

describe("bootstrap signer", () => {
  it("signs cluster-info's kubeconfig for each token that may sign", async () => {
    await token("aaaaaa", "0123456789abcdef", { "usage-bootstrap-signing": "true" });
    await token("bbbbbb", "fedcba9876543210", {
      "usage-bootstrap-signing": "true",
      expiration: rfc3339(clock + HOUR),
    });
    await eventually(
      async () => (await signatures()).join() === "jws-kubeconfig-aaaaaa,jws-kubeconfig-bbbbbb",
      10_000,
      "two signatures",
    );
    const data = await clusterInfo();
    const content = data.kubeconfig as string;
    assert.match(content, /^apiVersion: v1\nclusters:\n- cluster:\n {4}certificate-authority-data: /);
    assert.ok(verifies(data["jws-kubeconfig-aaaaaa"] as string, content, "aaaaaa", "0123456789abcdef"));
    assert.ok(verifies(data["jws-kubeconfig-bbbbbb"] as string, content, "bbbbbb", "fedcba9876543210"));
    // Another token's secret, or another id, does not verify.
    assert.ok(!verifies(data["jws-kubeconfig-aaaaaa"] as string, content, "aaaaaa", "fedcba9876543210"));
    assert.ok(!verifies(data["jws-kubeconfig-aaaaaa"] as string, content, "bbbbbb", "0123456789abcdef"));
  });

  it("ignores tokens not marked for signing, expired, or inconsistent, and drops foreign signatures", async () => {
    await token("cccccc", "0123456789abcdef", {});
    await token("dddddd", "0123456789abcdef", { "usage-bootstrap-signing": "false" });
    await token("eeeeee", "0123456789abcdef", {
      "usage-bootstrap-signing": "true",
      expiration: "2000-01-01T00:00:00Z",
    });
    await token(
      "ffffff",
      "0123456789abcdef",
      { "usage-bootstrap-signing": "true" },
      "bootstrap-token-gggggg",
    );
    await token("hhhhhh", "", { "usage-bootstrap-signing": "true" });
    // A token that may sign, created last: once it is signed the signer has seen those above.
    await token("iiiiii", "0123456789abcdef", { "usage-bootstrap-signing": "true" });
    await eventually(
      async () => (await signatures()).includes("jws-kubeconfig-iiiiii"),
      10_000,
      "iiiiii signed",
    );
    assert.deepEqual(await signatures(), [
      "jws-kubeconfig-aaaaaa",
      "jws-kubeconfig-bbbbbb",
      "jws-kubeconfig-iiiiii",
    ]);
    await client.must("DELETE", `${SECRETS}/bootstrap-token-iiiiii`);
    // A signature someone else wrote, for a token that does not exist, is dropped.
    await editClusterInfo((data) => ({ ...data, "jws-kubeconfig-zzzzzz": "x..y" }));
    await eventually(
      async () => (await signatures()).join() === "jws-kubeconfig-aaaaaa,jws-kubeconfig-bbbbbb",
      10_000,
      "zzzzzz and iiiiii gone",
    );
  });

  it("signs a changed kubeconfig again", async () => {
    let content = "";
    await editClusterInfo((data) => {
      content = `${data.kubeconfig}# changed\n`;
      return { ...data, kubeconfig: content };
    });
    await eventually(
      async () =>
        verifies(
          (await clusterInfo())["jws-kubeconfig-aaaaaa"] as string,
          content,
          "aaaaaa",
          "0123456789abcdef",
        ),
      10_000,
      "signature of the new content",
    );
  });

  it("removes the signature of a token that is deleted or expires", async () => {
    await client.must("DELETE", `${SECRETS}/bootstrap-token-aaaaaa`);
    await eventually(
      async () => (await signatures()).join() === "jws-kubeconfig-bbbbbb",
      10_000,
      "aaaaaa gone",
    );
    clock += 2 * HOUR;
    await eventually(async () => (await signatures()).length === 0, 10_000, "bbbbbb gone after expiry");
    // The Secret itself is the cleaner's to delete, not the signer's.
    assert.equal((await client.call("GET", `${SECRETS}/bootstrap-token-bbbbbb`)).status, 200);
  });
});
