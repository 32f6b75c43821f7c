import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { createAuthority } from "../../../gateway/pki/certificates.ts";
import { startTestGateway, type TestGateway } from "../../authorization/rbac/test-gateway.ts";
import type { ControllerClient } from "../client.ts";
import {
  AUTHENTICATION_CONFIG_MAP,
  type AuthenticationTrust,
  AuthenticationTrustController,
  authenticationData,
  currentCertificates,
} from "./authentication-trust-controller.ts";

const MINUTE_MS = 60_000;

/** The DER of every certificate of a PEM bundle, as base64, in order. */
const ders = (pem: string | undefined) =>
  (pem?.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map((b) =>
    new X509Certificate(b).raw.toString("base64"),
  );

let clientCa: string;
let otherCa: string;
let proxyCa: string;
let expired: string;

before(async () => {
  clientCa = (await createAuthority("client-ca")).certPem;
  otherCa = (await createAuthority("other-ca")).certPem;
  proxyCa = (await createAuthority("front-proxy-ca")).certPem;
  // Expired ten minutes ago: past upstream's five minutes of slack.
  expired = (await createAuthority("old-ca", -10 / (24 * 60))).certPem;
});

const requestHeader = () => ({
  caPem: proxyCa,
  allowedNames: ["front-proxy-client", "aggregator"],
  usernameHeaders: ["X-Remote-User"],
  groupHeaders: ["X-Remote-Group"],
  extraHeaderPrefixes: ["X-Remote-Extra-", "X-Ext-"],
});

describe("authentication config map data", () => {
  it("writes upstream's keys: PEM bundles, header lists as JSON arrays", () => {
    const data = authenticationData({ clientCaPem: clientCa, requestHeader: requestHeader() });
    assert.deepEqual(Object.keys(data).sort(), [
      "client-ca-file",
      "requestheader-allowed-names",
      "requestheader-client-ca-file",
      "requestheader-extra-headers-prefix",
      "requestheader-group-headers",
      "requestheader-username-headers",
    ]);
    assert.deepEqual(ders(data["client-ca-file"]), ders(clientCa));
    assert.deepEqual(ders(data["requestheader-client-ca-file"]), ders(proxyCa));
    assert.equal(data["requestheader-allowed-names"], '["front-proxy-client","aggregator"]');
    assert.equal(data["requestheader-username-headers"], '["X-Remote-User"]');
    assert.equal(data["requestheader-group-headers"], '["X-Remote-Group"]');
    assert.equal(data["requestheader-extra-headers-prefix"], '["X-Remote-Extra-","X-Ext-"]');
    // Go's PEM encoding: 64-column lines, each block ending in a newline.
    assert.match(
      data["client-ca-file"] ?? "",
      /^-----BEGIN CERTIFICATE-----\n([A-Za-z0-9+/=]{1,64}\n)+-----END CERTIFICATE-----\n$/,
    );
  });

  it("an empty allowed-names list (any proxy name) is written as []", () => {
    const data = authenticationData({
      clientCaPem: clientCa,
      requestHeader: { ...requestHeader(), allowedNames: [] },
    });
    assert.equal(data["requestheader-allowed-names"], "[]");
  });

  it("without the request-header authenticator only client-ca-file is published", () => {
    assert.deepEqual(Object.keys(authenticationData({ clientCaPem: clientCa })), ["client-ca-file"]);
  });

  it("drops expired and repeated certificates, keeping the bundle's order", () => {
    const bundle = `${otherCa}\n${expired}\n${clientCa}\n${otherCa}`;
    assert.deepEqual(ders(currentCertificates(bundle, new Date())), [...ders(otherCa), ...ders(clientCa)]);
    // Within five minutes of its end a certificate still counts, as upstream allows.
    const justExpired = new Date(new X509Certificate(expired).validToDate.getTime() + 4 * MINUTE_MS);
    assert.deepEqual(ders(currentCertificates(expired, justExpired)), ders(expired));
  });

  it("leaves a key out when none of its certificates is current", () => {
    const data = authenticationData({
      clientCaPem: expired,
      requestHeader: { ...requestHeader(), caPem: expired },
    });
    assert.deepEqual(data, {});
  });
});

describe("authentication trust controller", () => {
  let gw: TestGateway;
  let admin: ControllerClient;
  let path: string;
  let clock = new Date();
  const errors: string[] = [];
  let running: { stop(): Promise<void> } | undefined;
  let expiring: string;
  let trust: AuthenticationTrust;

  const eventually = async (what: string, check: () => Promise<boolean>) => {
    for (let i = 0; i < 500; i++) {
      if (await check()) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.fail(`timed out waiting for ${what}`);
  };
  const current = async () => (await admin.call("GET", path)).body as { data?: Record<string, string> };
  const isPublished = async () => {
    const reply = await admin.call("GET", path);
    return (
      reply.status === 200 &&
      JSON.stringify(reply.body.data) === JSON.stringify(authenticationData(trust, clock))
    );
  };

  before(async () => {
    gw = await startTestGateway("cluster");
    admin = await gw.client("admin", ["system:masters"]);
    path = `/api/v1/namespaces/${gw.naming.systemNamespace}/configmaps/${AUTHENTICATION_CONFIG_MAP}`;
    expiring = (await createAuthority("expiring-ca", 1)).certPem;
    trust = { clientCaPem: `${clientCa}${expiring}`, requestHeader: requestHeader() };
    // Upstream's one-minute re-check never comes round here: the informer alone repairs.
    running = await startController();
  });
  after(async () => {
    await running?.stop();
    await gw.stop();
  });

  async function startController(resyncMs?: number) {
    const controller = new AuthenticationTrustController(
      await gw.client("authentication-trust", ["system:masters"]),
      { namespace: gw.naming.systemNamespace, trust, now: () => clock, ...(resyncMs ? { resyncMs } : {}) },
      (err, context) => errors.push(`${context}: ${String(err)}`),
    );
    const stop = new AbortController();
    const run = controller.run(stop.signal);
    await eventually("sync", async () => controller.synced);
    return {
      async stop() {
        stop.abort();
        await run;
      },
    };
  }

  it("publishes the settings in the system namespace", async () => {
    const { data } = await current();
    assert.deepEqual(ders(data?.["client-ca-file"]), [...ders(clientCa), ...ders(expiring)]);
    assert.deepEqual(ders(data?.["requestheader-client-ca-file"]), ders(proxyCa));
    assert.equal(data?.["requestheader-allowed-names"], '["front-proxy-client","aggregator"]');
  });

  it("recreates the config map when it is deleted", async () => {
    assert.equal((await admin.call("DELETE", path)).status, 200);
    await eventually("recreated", isPublished);
  });

  it("rewrites an edited config map to exactly the settings, keeping others' labels", async () => {
    const found = (await admin.must("GET", path)).body;
    const edited = {
      ...found,
      metadata: { ...found.metadata, labels: { team: "ops" } },
      data: {
        ...found.data,
        "client-ca-file": otherCa,
        "requestheader-allowed-names": '["evil-proxy"]',
        "requestheader-uid-headers": '["X-Remote-Uid"]',
      },
    };
    assert.equal((await admin.call("PUT", path, edited)).status, 200);
    await eventually("restored", isPublished);
    assert.deepEqual((await admin.must("GET", path)).body.metadata.labels, { team: "ops" });
  });

  it("drops a certificate once it expires, without any change to the config map", async () => {
    await running?.stop();
    running = await startController(50);
    clock = new Date(new X509Certificate(expiring).validToDate.getTime() + 6 * MINUTE_MS);
    await eventually(
      "expired certificate dropped",
      async () => ders((await current()).data?.["client-ca-file"]).length === 1,
    );
    assert.deepEqual(ders((await current()).data?.["client-ca-file"]), ders(clientCa));
  });

  it("logged no errors", () => {
    assert.deepEqual(errors, []);
  });
});
