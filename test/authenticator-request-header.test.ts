// The authenticating proxy (`--requestheader-*`) over real TLS: the conformance suite, then the
// proxy's own rules — whose certificate is believed, and how headers become a user.
import "reflect-metadata";
import assert from "node:assert/strict";
import { randomBytes, webcrypto } from "node:crypto";
import { after, before, describe, it } from "node:test";
import * as x509 from "@peculiar/x509";
import { type Authority, createAuthority, issueCertificate } from "../gateway/pki/certificates.ts";
import {
  type Authenticator,
  authenticate,
  requestHeaderAuthenticator,
  x509Authenticator,
} from "../plugins/authentication/index.ts";
import {
  authenticatorConformance,
  type Credential,
  type ProbeServer,
  startProbeServer,
} from "./authenticator-conformance.ts";

const HEADERS = {
  usernameHeaders: ["X-Remote-User", "X-Forwarded-User"],
  groupHeaders: ["X-Remote-Group"],
  extraHeaderPrefixes: ["X-Remote-Extra-"],
};

/** An intermediate CA under `root`, to check chains the proxy presents in full. */
async function intermediate(root: Authority): Promise<Authority> {
  const alg = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
  const keys = (await webcrypto.subtle.generateKey(alg, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomBytes(8)
      .toString("hex")
      .replace(/^[89a-f]/, "1"),
    subject: "CN=front-proxy-intermediate",
    issuer: root.cert.subject,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 86_400_000),
    signingAlgorithm: alg,
    publicKey: keys.publicKey,
    signingKey: root.keys.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(root.cert),
    ],
  });
  const der = await webcrypto.subtle.exportKey("pkcs8", keys.privateKey);
  return { cert, keys, certPem: cert.toString("pem"), keyPem: x509.PemConverter.encode(der, "PRIVATE KEY") };
}

authenticatorConformance("request-header", async () => {
  const proxyCa = await createAuthority("front-proxy-ca");
  const clientCa = await createAuthority("client-ca");
  const proxy = await issueCertificate(proxyCa, { commonName: "front-proxy-client", usage: "client" });
  const otherName = await issueCertificate(proxyCa, { commonName: "someone-else", usage: "client" });
  const user = await issueCertificate(clientCa, { commonName: "front-proxy-client", usage: "client" });
  const identity = { "x-remote-user": "alice", "x-remote-group": ["dev", "ops"] };
  return {
    authenticator: requestHeaderAuthenticator({
      clientCaPem: proxyCa.certPem,
      allowedNames: ["front-proxy-client"],
      ...HEADERS,
    }),
    // The listener asks for both CAs, as a server that has both would.
    tlsClientCaPem: `${clientCa.certPem}\n${proxyCa.certPem}`,
    valid: { certPem: proxy.certPem, keyPem: proxy.keyPem, headers: identity },
    invalid: [
      { name: "no proxy certificate", credential: { headers: identity }, expect: "none" },
      {
        name: "certificate of another CA with the allowed name",
        credential: { certPem: user.certPem, keyPem: user.keyPem, headers: identity },
        expect: "none",
      },
      {
        name: "name not allowed",
        credential: { certPem: otherName.certPem, keyPem: otherName.keyPem, headers: identity },
        expect: "none",
      },
    ],
    malformed: [
      {
        name: "garbage user from an untrusted caller",
        credential: { certPem: user.certPem, keyPem: user.keyPem, headers: { "x-remote-user": "\u00ff" } },
      },
    ],
    secrets: [proxy.keyPem, otherName.keyPem, user.keyPem],
    checkUser(u) {
      assert.equal(u.username, "alice");
    },
  };
});

describe("requestHeaderAuthenticator", () => {
  let proxyCa: Authority;
  let clientCa: Authority;
  let proxy: Credential;
  let server: ProbeServer;

  before(async () => {
    proxyCa = await createAuthority("front-proxy-ca");
    clientCa = await createAuthority("client-ca");
    const p = await issueCertificate(proxyCa, { commonName: "front-proxy-client", usage: "client" });
    proxy = { certPem: p.certPem, keyPem: p.keyPem };
    server = await startProbeServer(`${clientCa.certPem}\n${proxyCa.certPem}`);
  });
  after(() => server.close());

  const make = (over: Partial<Parameters<typeof requestHeaderAuthenticator>[0]> = {}) =>
    requestHeaderAuthenticator({
      clientCaPem: proxyCa.certPem,
      allowedNames: ["front-proxy-client"],
      ...HEADERS,
      ...over,
    });

  it("builds the user from the first non-empty user header, all group headers and the extra headers", async () => {
    const outcome = await server.probe(make(), {
      ...proxy,
      headers: {
        "X-Remote-User": "",
        "x-forwarded-user": "bob",
        "X-Remote-Group": ["dev", "", "team, a"],
        "X-Remote-Extra-Scopes": ["openid", "profile"],
        "x-remote-extra-Acme.com%2Fproject": "p1",
        "X-Remote-Extra-bad%zz": "kept",
        "x-remote-extra-__proto__": "plain",
        "x-remote-extra-": "no key",
      },
    });
    assert.deepEqual(outcome, {
      kind: "user",
      user: {
        username: "bob",
        uid: "",
        groups: ["dev", "team, a"],
        extra: {
          scopes: ["openid", "profile"],
          "acme.com/project": ["p1"],
          "bad%zz": ["kept"],
          ["__proto__"]: ["plain"],
        },
      },
    });
  });

  it("reads Node's joined view of repeated headers as one value each", async () => {
    const outcome = await server.probe(
      make(),
      { ...proxy, headers: { "x-remote-user": "a", "x-remote-group": ["g1", "g2"] } },
      { headers: "joined" },
    );
    assert.equal(outcome.kind, "user");
    if (outcome.kind === "user") assert.deepEqual(outcome.user.groups, ["g1, g2"]);
  });

  it("answers none for a trusted proxy that names no user", async () => {
    assert.deepEqual(await server.probe(make(), { ...proxy, headers: { "x-remote-group": "g" } }), {
      kind: "none",
    });
  });

  it("with no allowed names, takes any certificate of the request-header CA", async () => {
    const other = await issueCertificate(proxyCa, { commonName: "some-proxy", usage: "client" });
    const credential = {
      certPem: other.certPem,
      keyPem: other.keyPem,
      headers: { "x-remote-user": "alice" },
    };
    assert.equal((await server.probe(make(), credential)).kind, "none");
    assert.equal((await server.probe(make({ allowedNames: [] }), credential)).kind, "user");
  });

  it("ignores serving certificates and expired ones of the request-header CA", async () => {
    const serving = await issueCertificate(proxyCa, { commonName: "front-proxy-client", usage: "server" });
    const headers = { "x-remote-user": "alice" };
    assert.deepEqual(
      await server.probe(make(), { certPem: serving.certPem, keyPem: serving.keyPem, headers }),
      { kind: "none" },
    );
    const later = make({ now: () => new Date(Date.now() + 400 * 86_400_000) });
    assert.deepEqual(await server.probe(later, { ...proxy, headers }), { kind: "none" });
  });

  it("follows a chain through an intermediate the proxy sends", async (t) => {
    // A listener that trusts the client CA only, as the gateway's: there Node hands over the
    // chain the peer sent (with the request-header root in the listener's own CAs, Node 24 was
    // seen to drop the sent intermediates once OpenSSL had verified the chain).
    const server = await startProbeServer(clientCa.certPem);
    t.after(() => server.close());
    const mid = await intermediate(proxyCa);
    const leaf = await issueCertificate(mid, { commonName: "front-proxy-client", usage: "client" });
    const headers = { "x-remote-user": "alice" };
    const chained = { certPem: `${leaf.certPem}\n${mid.certPem}`, keyPem: leaf.keyPem, headers };
    assert.equal((await server.probe(make(), chained)).kind, "user");
    // Without the intermediate the chain does not reach the CA.
    assert.equal(
      (await server.probe(make(), { certPem: leaf.certPem, keyPem: leaf.keyPem, headers })).kind,
      "none",
    );
    // An intermediate of another root does not help.
    const otherMid = await intermediate(clientCa);
    const stray = await issueCertificate(otherMid, { commonName: "front-proxy-client", usage: "client" });
    const strayCred = { certPem: `${stray.certPem}\n${otherMid.certPem}`, keyPem: stray.keyPem, headers };
    assert.equal((await server.probe(make(), strayCred)).kind, "none");
  });

  it("beside the client-certificate authenticator: a proxy is not a user, and a user is not a proxy", async () => {
    // The listener of the gateway asks for client-CA certificates only.
    const gatewayLike = await startProbeServer(clientCa.certPem);
    try {
      const chain: Authenticator[] = [make(), x509Authenticator()];
      const union: Authenticator = {
        name: "union",
        async authenticate(req) {
          const r = await authenticate(chain, req, true);
          return "user" in r ? { kind: "user", user: r.user } : { kind: "rejected", reason: r.rejected };
        },
      };
      const headers = { "x-remote-user": "alice" };
      const viaProxy = await gatewayLike.probe(union, { ...proxy, headers });
      assert.equal(viaProxy.kind === "user" && viaProxy.user.username, "alice");
      // The proxy's certificate alone does not make a user of the proxy.
      const bare = await gatewayLike.probe(union, proxy);
      assert.equal(bare.kind, "rejected");
      // A client-CA user who sends identity headers is himself, not whom the headers name.
      const u = await issueCertificate(clientCa, { commonName: "carol", usage: "client" });
      const spoof = await gatewayLike.probe(union, { certPem: u.certPem, keyPem: u.keyPem, headers });
      assert.equal(spoof.kind === "user" && spoof.user.username, "carol");
    } finally {
      await gatewayLike.close();
    }
  });

  it("refuses bad configuration", () => {
    assert.throws(() => make({ clientCaPem: "not a certificate" }), /no certificate/);
    assert.throws(() => make({ usernameHeaders: [] }), /at least one username header/);
    assert.throws(() => make({ groupHeaders: [" "] }), /empty group header/);
  });
});
