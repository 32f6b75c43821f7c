// The token controller against a real gateway process, as an API client with the admin's
// credentials, next to the gateway's own.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import { jwtVerify } from "jose";
import { naming } from "../../../backends/naming/index.ts";
import { type GatewayProcess, startGateway } from "../../../test/support/gateway-process.ts";
import { eventually } from "../../../test/support/watch.ts";
import { parseVerificationKeys, ServiceAccountTokenSigner } from "../../authentication/index.ts";
import { ControllerClient } from "../client.ts";
import type { InformerObject } from "../informer.ts";
import { TokenController } from "./token-controller.ts";

// The gateway runs its own token controller; both sign with the gateway's key, so either may
// fill a Secret first and the token verifies the same.
const keys = { privateKey: "", publicKey: "" };
const names = naming("cluster");
const TOKEN_TYPE = "cluster.io/service-account-token";
const NAME_KEY = "cluster.io/service-account.name";
const UID_KEY = "cluster.io/service-account.uid";

let gw: GatewayProcess;
let client: ControllerClient;
let caPem: string;
const stop = new AbortController();
const errors: string[] = [];
let controller: TokenController;
let run: Promise<void>;

const unb64 = (s: string | undefined) => Buffer.from(s ?? "", "base64").toString("utf8");

async function get(path: string) {
  return client.call("GET", path);
}

async function post(path: string, body: unknown) {
  const reply = await client.call("POST", path, body);
  assert.equal(reply.status, 201, JSON.stringify(reply.body));
  return reply.body;
}

function tokenSecret(name: string, account: string, annotations: Record<string, string> = {}) {
  return {
    metadata: { name, annotations: { [NAME_KEY]: account, ...annotations } },
    type: TOKEN_TYPE,
  };
}

before(async () => {
  gw = await startGateway();
  keys.privateKey = readFileSync(`${gw.dataDir}/pki/sa.key`, "utf8");
  keys.publicKey = readFileSync(`${gw.dataDir}/pki/sa.pub`, "utf8");
  caPem = readFileSync(`${gw.dataDir}/pki/ca.crt`, "utf8");
  client = ControllerClient.fromKubeconfig(gw.kubeconfig);
  controller = new TokenController(
    client,
    { naming: names, signer: ServiceAccountTokenSigner.fromPem(keys.privateKey), rootCaPem: caPem },
    (err, context) => errors.push(`${context}: ${String(err)}`),
  );
  run = controller.run(stop.signal);
  await post("/api/v1/namespaces", { metadata: { name: "tok" } });
  await eventually(() => controller.synced, 10_000, "controller sync");
});

after(async () => {
  stop.abort();
  await run;
  await client?.close();
  await gw?.stop();
  if (gw) await rm(gw.dataDir, { recursive: true, force: true });
  assert.deepEqual(errors, []);
});

describe("token controller", () => {
  it("fills a token Secret with a legacy token, the CA and the namespace, and records the account uid", async () => {
    const sa = await post("/api/v1/namespaces/tok/serviceaccounts", { metadata: { name: "robot" } });
    await post("/api/v1/namespaces/tok/secrets", tokenSecret("robot-token", "robot"));
    let secret: InformerObject | undefined;
    await eventually(
      async () => {
        secret = (await get("/api/v1/namespaces/tok/secrets/robot-token")).body;
        return Boolean((secret?.data as Record<string, string> | undefined)?.token);
      },
      10_000,
      "the token",
    );
    assert.ok(secret);
    const data = secret.data as Record<string, string>;
    assert.equal(unb64(data["ca.crt"]), caPem);
    assert.equal(unb64(data.namespace), "tok");
    const annotations = (secret.metadata as Record<string, unknown>).annotations as Record<string, string>;
    assert.equal(annotations[UID_KEY], sa.metadata.uid);
    assert.equal(annotations[NAME_KEY], "robot");
    const [key] = parseVerificationKeys(keys.publicKey, "pub");
    assert.ok(key);
    const { payload, protectedHeader } = await jwtVerify(unb64(data.token), key.key);
    assert.equal(protectedHeader.kid, key.keyId);
    assert.deepEqual(payload, {
      iss: "cluster/serviceaccount",
      sub: "system:serviceaccount:tok:robot",
      "cluster.io/serviceaccount/namespace": "tok",
      "cluster.io/serviceaccount/secret.name": "robot-token",
      "cluster.io/serviceaccount/service-account.name": "robot",
      "cluster.io/serviceaccount/service-account.uid": sa.metadata.uid,
    });
  });

  it("leaves a filled Secret's token alone", async () => {
    await post("/api/v1/namespaces/tok/serviceaccounts", { metadata: { name: "keeper" } });
    await post("/api/v1/namespaces/tok/secrets", {
      ...tokenSecret("keeper-token", "keeper"),
      data: { token: Buffer.from("given").toString("base64") },
    });
    await eventually(
      async () =>
        Boolean(
          (await get("/api/v1/namespaces/tok/secrets/keeper-token")).body?.metadata?.annotations?.[UID_KEY],
        ),
      10_000,
      "the uid annotation",
    );
    const secret = (await get("/api/v1/namespaces/tok/secrets/keeper-token")).body;
    assert.equal(unb64(secret.data.token), "given");
    assert.equal(unb64(secret.data.namespace), "tok");
  });

  it("redoes an update computed from a stale copy instead of overwriting", async () => {
    await post("/api/v1/namespaces/tok/serviceaccounts", { metadata: { name: "racer" } });
    const stale = await post("/api/v1/namespaces/tok/secrets", tokenSecret("racer-token", "racer"));
    await eventually(
      async () => Boolean((await get("/api/v1/namespaces/tok/secrets/racer-token")).body?.data?.token),
      10_000,
      "the first fill",
    );
    // Another writer changes the Secret after the copy was taken.
    const current = (await get("/api/v1/namespaces/tok/secrets/racer-token")).body;
    const put = await client.call("PUT", "/api/v1/namespaces/tok/secrets/racer-token", {
      ...current,
      metadata: { ...current.metadata, labels: { touched: "yes" } },
    });
    assert.equal(put.status, 200);
    // A controller instance that is not running works from the stale copy (no token yet): its
    // write conflicts, it reads the Secret again, and finds nothing left to do.
    const idle = new TokenController(
      client,
      { naming: names, signer: ServiceAccountTokenSigner.fromPem(keys.privateKey), rootCaPem: caPem },
      (err) => assert.fail(String(err)),
    );
    await idle.reconcileSecret(stale);
    const after = (await get("/api/v1/namespaces/tok/secrets/racer-token")).body;
    assert.equal(after.metadata.labels?.touched, "yes");
    assert.equal(after.data.token, current.data.token);
    assert.equal(after.metadata.resourceVersion, put.body.metadata.resourceVersion);
  });

  it("deletes token Secrets of accounts that do not exist or were recreated", async () => {
    await post("/api/v1/namespaces/tok/secrets", tokenSecret("ghost-token", "ghost"));
    await eventually(
      async () => (await get("/api/v1/namespaces/tok/secrets/ghost-token")).status === 404,
      10_000,
      "the orphan's deletion",
    );
    await post("/api/v1/namespaces/tok/serviceaccounts", { metadata: { name: "reborn" } });
    await post(
      "/api/v1/namespaces/tok/secrets",
      tokenSecret("reborn-token", "reborn", { [UID_KEY]: "old-uid" }),
    );
    await eventually(
      async () => (await get("/api/v1/namespaces/tok/secrets/reborn-token")).status === 404,
      10_000,
      "the stale-uid secret's deletion",
    );
  });

  it("deletes an account's token Secrets with the account, and no others", async () => {
    await post("/api/v1/namespaces/tok/serviceaccounts", { metadata: { name: "doomed" } });
    await post("/api/v1/namespaces/tok/serviceaccounts", { metadata: { name: "survivor" } });
    await post("/api/v1/namespaces/tok/secrets", tokenSecret("doomed-token", "doomed"));
    await post("/api/v1/namespaces/tok/secrets", tokenSecret("survivor-token", "survivor"));
    await post("/api/v1/namespaces/tok/secrets", { metadata: { name: "plain" }, data: {} });
    for (const name of ["doomed-token", "survivor-token"]) {
      await eventually(
        async () => Boolean((await get(`/api/v1/namespaces/tok/secrets/${name}`)).body?.data?.token),
        10_000,
        `${name} filled`,
      );
    }
    assert.equal((await client.call("DELETE", "/api/v1/namespaces/tok/serviceaccounts/doomed")).status, 200);
    await eventually(
      async () => (await get("/api/v1/namespaces/tok/secrets/doomed-token")).status === 404,
      10_000,
      "the account's token deleted",
    );
    assert.equal((await get("/api/v1/namespaces/tok/secrets/survivor-token")).status, 200);
    assert.equal((await get("/api/v1/namespaces/tok/secrets/plain")).status, 200);
  });

  it("drops a deleted token Secret from its account's secrets", async () => {
    await post("/api/v1/namespaces/tok/serviceaccounts", {
      metadata: { name: "listed" },
      secrets: [{ name: "listed-token" }, { name: "other" }],
    });
    await post("/api/v1/namespaces/tok/secrets", tokenSecret("listed-token", "listed"));
    await eventually(
      async () => Boolean((await get("/api/v1/namespaces/tok/secrets/listed-token")).body?.data?.token),
      10_000,
      "filled",
    );
    assert.equal((await client.call("DELETE", "/api/v1/namespaces/tok/secrets/listed-token")).status, 200);
    await eventually(
      async () => {
        const sa = (await get("/api/v1/namespaces/tok/serviceaccounts/listed")).body;
        return JSON.stringify(sa?.secrets) === JSON.stringify([{ name: "other" }]);
      },
      10_000,
      "the reference removed",
    );
  });
});
