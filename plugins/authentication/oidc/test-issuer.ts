// For tests only: a real OpenID Connect issuer on 127.0.0.1 — https with a CA made for it,
// a discovery document and a JWKS — that signs ID tokens and can rotate its keys.
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from "jose";
import { createAuthority, issueCertificate } from "../../../gateway/pki/certificates.ts";

type SigningKey = Awaited<ReturnType<typeof generateKeyPair>>["privateKey"];

interface Key {
  readonly kid: string;
  readonly alg: string;
  readonly privateKey: SigningKey;
  readonly jwk: JWK;
}

export interface TestIssuer {
  /** The issuer URL (with a path, as many real issuers have). */
  readonly url: string;
  /** PEM of the CA that signed the issuer's serving certificate. */
  readonly caPem: string;
  /** Requests served, by kind. */
  readonly hits: { discovery: number; jwks: number };
  /** The key ids currently published. */
  readonly kids: () => string[];
  /** Signs claims; defaults: iss = url, the newest published RS256 key. */
  sign(claims: JWTPayload, options?: { readonly kid?: string; readonly alg?: string }): Promise<string>;
  /** Makes a new key; `publish` false keeps it out of the JWKS (for "unknown key" cases). */
  addKey(options?: { readonly alg?: string; readonly publish?: boolean }): Promise<string>;
  /** Publishes keys made with publish false. */
  publish(kid: string): void;
  /** Overrides fields of the discovery document (e.g. a different `issuer`). */
  discovery: Record<string, unknown>;
  /** Answer every request with this status (e.g. 503) while set. */
  failWith: number | undefined;
  close(): Promise<void>;
}

export async function startTestIssuer(path = "/idp"): Promise<TestIssuer> {
  const ca = await createAuthority("test-oidc-ca");
  const serving = await issueCertificate(ca, {
    commonName: "127.0.0.1",
    usage: "server",
    altNames: ["127.0.0.1", "localhost"],
  });
  const keys: Key[] = [];
  const published = new Set<string>();
  let counter = 0;

  const server: Server = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (issuer.failWith !== undefined) return send(issuer.failWith, { error: "unavailable" });
    if (req.url === `${path}/.well-known/openid-configuration`) {
      issuer.hits.discovery++;
      return send(200, {
        issuer: url,
        jwks_uri: `${url}/keys`,
        id_token_signing_alg_values_supported: ["RS256", "ES256"],
        ...issuer.discovery,
      });
    }
    if (req.url === `${path}/keys`) {
      issuer.hits.jwks++;
      return send(200, { keys: keys.filter((k) => published.has(k.kid)).map((k) => k.jwk) });
    }
    send(404, { error: "not found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;

  async function addKey(options: { alg?: string; publish?: boolean } = {}): Promise<string> {
    const alg = options.alg ?? "RS256";
    const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
    const kid = `key-${++counter}`;
    const jwk = { ...(await exportJWK(publicKey)), kid, alg, use: "sig" };
    keys.push({ kid, alg, privateKey, jwk });
    if (options.publish !== false) published.add(kid);
    return kid;
  }

  const issuer: TestIssuer = {
    url,
    caPem: ca.certPem,
    hits: { discovery: 0, jwks: 0 },
    kids: () => [...published],
    async sign(claims, options = {}) {
      const key = options.kid
        ? keys.find((k) => k.kid === options.kid)
        : [...keys].reverse().find((k) => published.has(k.kid) && k.alg === "RS256");
      if (!key) throw new Error("no such key");
      return new SignJWT({ iss: url, ...claims })
        .setProtectedHeader({ alg: options.alg ?? key.alg, kid: key.kid, typ: "JWT" })
        .sign(key.privateKey);
    },
    addKey,
    publish: (kid) => published.add(kid),
    discovery: {},
    failWith: undefined,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  await addKey();
  return issuer;
}
