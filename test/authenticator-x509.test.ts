// The client-certificate authenticator under the conformance suite: certificates of the client
// CA authenticate; those of another CA, or made for serving, do not. Then the same through the
// real gateway, whose listener also trusts the front-proxy CA.
import assert from "node:assert/strict";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { naming } from "../backends/naming/index.ts";
import { createAuthority, issueCertificate, loadAuthority } from "../gateway/pki/certificates.ts";
import { renderKubeconfig } from "../gateway/pki/kubeconfig.ts";
import { x509Authenticator } from "../plugins/authentication/index.ts";
import { authenticatorConformance } from "./authenticator-conformance.ts";
import { ApiClient } from "./support/api-client.ts";
import { type GatewayProcess, startGateway } from "./support/gateway-process.ts";

authenticatorConformance("x509", async () => {
  const clientCa = await createAuthority("client-ca");
  const otherCa = await createAuthority("other-ca");
  const alice = await issueCertificate(clientCa, {
    commonName: "alice",
    organizations: ["dev", "ops"],
    usage: "client",
  });
  const stranger = await issueCertificate(otherCa, { commonName: "mallory", usage: "client" });
  const serving = await issueCertificate(clientCa, { commonName: "server", usage: "server" });
  return {
    authenticator: x509Authenticator(),
    tlsClientCaPem: clientCa.certPem,
    valid: { certPem: alice.certPem, keyPem: alice.keyPem },
    invalid: [
      {
        name: "certificate of another CA",
        credential: { certPem: stranger.certPem, keyPem: stranger.keyPem },
      },
      { name: "serving certificate", credential: { certPem: serving.certPem, keyPem: serving.keyPem } },
    ],
    secrets: [alice.keyPem, stranger.keyPem, serving.keyPem],
    checkUser(user) {
      assert.equal(user.username, "alice");
      assert.deepEqual(user.groups, ["dev", "ops"]);
    },
  };
});

// The gateway's listener trusts the client CA and the front-proxy CA alike (a proxy must be able
// to present its certificate), so only the authenticator's own chain check keeps a front-proxy
// certificate sent without the proxy's headers from logging in as its CN.
describe("x509 through the gateway's TLS listener", () => {
  let gw: GatewayProcess;
  const clients: ApiClient[] = [];
  before(async () => {
    gw = await startGateway();
  });
  after(async () => {
    for (const c of clients) await c.close();
    await gw?.stop();
    if (gw) await rm(gw.dataDir, { recursive: true, force: true });
  });

  /** An API client presenting a certificate of the CA stored as `pki/<ca>.{crt,key}`. */
  async function clientOf(ca: string, commonName: string): Promise<ApiClient> {
    const pki = join(gw.dataDir, "pki");
    const authority = await loadAuthority(
      await readFile(join(pki, `${ca}.crt`), "utf8"),
      await readFile(join(pki, `${ca}.key`), "utf8"),
    );
    const leaf = await issueCertificate(authority, {
      commonName,
      organizations: ["system:masters"],
      usage: "client",
    });
    const path = join(gw.dataDir, `${ca}-${commonName}.kubeconfig`);
    await writeFile(
      path,
      renderKubeconfig({
        clusterName: "c",
        userName: commonName,
        server: `https://127.0.0.1:${gw.port}`,
        caPem: await readFile(join(pki, "ca.crt"), "utf8"),
        clientCertPem: leaf.certPem,
        clientKeyPem: leaf.keyPem,
      }),
    );
    const client = new ApiClient(path);
    clients.push(client);
    return client;
  }

  const group = naming().group("authentication");
  const whoami = (client: ApiClient, headers?: Record<string, string>) =>
    client.call("POST", `/apis/${group}/v1/selfsubjectreviews`, {
      body: { apiVersion: `${group}/v1`, kind: "SelfSubjectReview" },
      ...(headers ? { headers } : {}),
    });

  it("a client-CA certificate logs in as its CN", async () => {
    const res = await whoami(await clientOf("ca", "carol"));
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.status.userInfo.username, "carol");
  });

  it("the front-proxy CA is accepted for the proxy, with its headers", async () => {
    const res = await whoami(await clientOf("front-proxy-ca", "front-proxy-client"), {
      "X-Remote-User": "dave",
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.status.userInfo.username, "dave");
  });

  for (const cn of ["front-proxy-client", "mallory"]) {
    it(`a front-proxy-CA certificate (CN ${cn}) without the proxy's headers is not its CN`, async () => {
      const client = await clientOf("front-proxy-ca", cn);
      const res = await whoami(client);
      assert.equal(res.status, 401, res.text);
      assert.equal(res.body.kind, "Status");
      assert.equal(res.body.reason, "Unauthorized");
      const list = await client.call("GET", "/api/v1/secrets");
      assert.equal(list.status, 401, list.text);
    });
  }
});
