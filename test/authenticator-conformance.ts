// The authenticator conformance suite: every Authenticator runs the same cases over real TLS
// connections (no credential, a valid one, invalid ones, malformed input of every kind) and must
// answer "none", a user or a rejection — never throw, never hang, never quote the credential
// in a rejection. An authenticator's test file calls `authenticatorConformance` with fixtures.
import assert from "node:assert/strict";
import { createServer, request, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import type { TLSSocket } from "node:tls";
import type { UserInfo } from "../gateway/pipeline/index.ts";
import { createAuthority, issueCertificate } from "../gateway/pki/certificates.ts";
import {
  type AuthenticationRequest,
  type AuthenticationResult,
  type Authenticator,
  authenticate,
} from "../plugins/authentication/index.ts";

/** What a client presents: headers (a list is sent as repeated lines) and a client certificate. */
export interface Credential {
  readonly headers?: Readonly<Record<string, string | readonly string[]>>;
  readonly certPem?: string;
  readonly keyPem?: string;
}

export type Outcome = AuthenticationResult | { readonly kind: "threw"; readonly error: string };

/** An https server that runs an authenticator on each request's real headers and socket. */
export interface ProbeServer {
  /**
   * Connects with `credential` and returns the authenticator's answer. `rewrite` may replace
   * the request the authenticator sees (wrong types); `headers` picks Node's joined view or the
   * one with repeated headers kept apart.
   */
  probe(
    authenticator: Authenticator,
    credential: Credential,
    options?: {
      readonly rewrite?: (req: AuthenticationRequest) => AuthenticationRequest;
      readonly headers?: "joined" | "distinct";
    },
  ): Promise<Outcome>;
  close(): Promise<void>;
}

interface Job {
  readonly authenticator: Authenticator;
  readonly rewrite?: (req: AuthenticationRequest) => AuthenticationRequest;
  readonly headers: "joined" | "distinct";
  readonly done: (outcome: Outcome) => void;
}

/** `clientCaPem`: the CAs the TLS listener names when it asks for client certificates. */
export async function startProbeServer(clientCaPem?: string): Promise<ProbeServer> {
  const ca = await createAuthority("probe-server-ca");
  const serving = await issueCertificate(ca, {
    commonName: "127.0.0.1",
    usage: "server",
    altNames: ["127.0.0.1"],
  });
  const jobs = new Map<string, Job>();
  let next = 0;
  const server: Server = createServer(
    {
      cert: serving.certPem,
      key: serving.keyPem,
      ca: clientCaPem ?? ca.certPem,
      // As the gateway's listener: ask for a certificate, let each authenticator judge it.
      requestCert: true,
      rejectUnauthorized: false,
      maxHeaderSize: 64 * 1024,
    },
    (req, res) => {
      const id = String(req.headers["x-probe-id"]);
      const job = jobs.get(id);
      jobs.delete(id);
      res.end();
      if (!job) return;
      const headers = job.headers === "distinct" ? req.headersDistinct : req.headers;
      let input: AuthenticationRequest = { headers, socket: req.socket as TLSSocket };
      if (job.rewrite) input = job.rewrite(input);
      let pending: Promise<AuthenticationResult>;
      try {
        pending = Promise.resolve(job.authenticator.authenticate(input));
      } catch (err) {
        pending = Promise.reject(err);
      }
      pending.then(job.done, (err: unknown) => job.done({ kind: "threw", error: String(err) }));
    },
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    probe(authenticator, credential, options = {}) {
      const id = String(++next);
      return new Promise<Outcome>((resolve, reject) => {
        jobs.set(id, {
          authenticator,
          rewrite: options.rewrite,
          headers: options.headers ?? "distinct",
          done: resolve,
        });
        const headers: Record<string, string | string[]> = { "x-probe-id": id };
        for (const [k, v] of Object.entries(credential.headers ?? {}))
          headers[k] = typeof v === "string" ? v : [...v];
        const req = request({
          host: "127.0.0.1",
          port,
          path: "/",
          method: "GET",
          ca: ca.certPem,
          cert: credential.certPem,
          key: credential.keyPem,
          agent: false,
          headers,
        });
        req.on("response", (res) => res.resume());
        req.on("error", (err) => {
          jobs.delete(id);
          reject(err);
        });
        req.end();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface InvalidCase {
  readonly name: string;
  readonly credential: Credential;
  /** Default "rejected"; an authenticator may instead ignore credentials it cannot trust. */
  readonly expect?: "rejected" | "none";
}

export interface AuthenticatorFixtures {
  readonly authenticator: Authenticator;
  /** CAs the TLS listener asks client certificates for (default: a CA of the probe's own). */
  readonly tlsClientCaPem?: string;
  readonly valid: Credential;
  readonly invalid: readonly InvalidCase[];
  /** Input specific to this authenticator that is malformed; answered by "none" or a rejection. */
  readonly malformed?: readonly { readonly name: string; readonly credential: Credential }[];
  /** Strings that must never appear in a rejection reason (tokens, keys). */
  readonly secrets: readonly string[];
  /** Further checks of the user the valid credential yields. */
  readonly checkUser?: (user: UserInfo) => void;
  teardown?(): Promise<void>;
}

// Bytes HTTP allows in a header value but no credential contains (obs-text, tab).
const GARBAGE = "\u00ff\u00fe\u0080-\u00c3\u0028-\t-\u00a0~";

function assertNoSecrets(outcome: Outcome, secrets: readonly string[]): void {
  if (outcome.kind !== "rejected") return;
  for (const s of secrets) {
    assert.ok(
      !outcome.reason.includes(s),
      `rejection reason quotes a credential: ${outcome.reason.slice(0, 200)}`,
    );
  }
}

function assertAnswered(outcome: Outcome, what: string): void {
  assert.notEqual(outcome.kind, "threw", `${what}: threw ${(outcome as { error?: string }).error}`);
  assert.ok(
    ["none", "rejected", "user"].includes(outcome.kind),
    `${what}: unexpected answer ${outcome.kind}`,
  );
}

export function authenticatorConformance(name: string, setup: () => Promise<AuthenticatorFixtures>): void {
  describe(`authenticator conformance: ${name}`, { timeout: 60_000 }, () => {
    let fx: AuthenticatorFixtures;
    let server: ProbeServer;

    before(async () => {
      fx = await setup();
      server = await startProbeServer(fx.tlsClientCaPem);
    });
    after(async () => {
      await server?.close();
      await fx?.teardown?.();
    });

    it("answers none when there is no credential", async () => {
      const outcome = await server.probe(fx.authenticator, {});
      assert.equal(outcome.kind, "none");
    });

    it("answers a user with a name for a valid credential", async () => {
      for (const headers of ["distinct", "joined"] as const) {
        const outcome = await server.probe(fx.authenticator, fx.valid, { headers });
        assert.equal(outcome.kind, "user", JSON.stringify(outcome));
        if (outcome.kind !== "user") return;
        assert.equal(typeof outcome.user.username, "string");
        assert.ok(outcome.user.username.length > 0);
        assert.ok(Array.isArray(outcome.user.groups));
        assert.equal(typeof outcome.user.extra, "object");
        fx.checkUser?.(outcome.user);
      }
    });

    it("authenticates many requests at once alike", async () => {
      const outcomes = await Promise.all(
        Array.from({ length: 12 }, () => server.probe(fx.authenticator, fx.valid)),
      );
      const names = new Set(outcomes.map((o) => (o.kind === "user" ? o.user.username : `(${o.kind})`)));
      assert.equal(names.size, 1);
      assert.ok(![...names][0]?.startsWith("("));
    });

    it("through the union, a valid credential is an authenticated user", async () => {
      const outcome = await server.probe(
        { name: "union", authenticate: (req) => unionAsResult([fx.authenticator], req) },
        fx.valid,
      );
      assert.equal(outcome.kind, "user");
      if (outcome.kind === "user") assert.ok(outcome.user.groups.includes("system:authenticated"));
    });

    it("answers invalid credentials as expected, without quoting them", async () => {
      assert.ok(fx.invalid.length > 0, "fixtures need at least one invalid credential");
      for (const c of fx.invalid) {
        const outcome = await server.probe(fx.authenticator, c.credential);
        assertAnswered(outcome, c.name);
        assert.equal(outcome.kind, c.expect ?? "rejected", `${c.name}: ${JSON.stringify(outcome)}`);
        assertNoSecrets(outcome, fx.secrets);
      }
    });

    it("through the union, an invalid credential is refused even with anonymous access on", async () => {
      for (const c of fx.invalid.filter((i) => (i.expect ?? "rejected") === "rejected")) {
        const outcome = await server.probe(
          { name: "union", authenticate: (req) => unionAsResult([fx.authenticator], req, true) },
          c.credential,
        );
        assert.equal(outcome.kind, "rejected", c.name);
        assertNoSecrets(outcome, fx.secrets);
      }
    });

    it("answers malformed headers with none or a rejection", async () => {
      const cases: { name: string; credential: Credential }[] = [
        { name: "garbage bytes in Authorization", credential: { headers: { authorization: GARBAGE } } },
        { name: "garbage bearer token", credential: { headers: { authorization: `Bearer ${GARBAGE}` } } },
        { name: "bare scheme", credential: { headers: { authorization: "Bearer" } } },
        { name: "bearer with two spaces", credential: { headers: { authorization: "Bearer  x" } } },
        { name: "other scheme", credential: { headers: { authorization: "Basic YWxpY2U6c2VjcmV0" } } },
        { name: "JSON as token", credential: { headers: { authorization: 'Bearer {"iss":"x"}' } } },
        { name: "dots only", credential: { headers: { authorization: "Bearer ..." } } },
        { name: "JWT-shaped garbage", credential: { headers: { authorization: "Bearer e30.e30.e30" } } },
        { name: "huge token", credential: { headers: { authorization: `Bearer ${"a".repeat(40_000)}` } } },
        {
          name: "repeated Authorization",
          credential: { headers: { authorization: ["Bearer a", "Bearer b"] } },
        },
        {
          name: "garbage identity headers",
          credential: { headers: { "x-remote-user": GARBAGE, "x-remote-group": GARBAGE } },
        },
        { name: "huge identity headers", credential: { headers: { "x-remote-user": "u".repeat(40_000) } } },
        ...(fx.malformed ?? []),
      ];
      for (const c of cases) {
        for (const headers of ["distinct", "joined"] as const) {
          const outcome = await server.probe(fx.authenticator, c.credential, { headers });
          assertAnswered(outcome, c.name);
          assert.notEqual(outcome.kind, "user", `${c.name}: ${JSON.stringify(outcome)}`);
          assertNoSecrets(outcome, fx.secrets);
        }
      }
    });

    it("answers values of the wrong type with none or a rejection", async () => {
      const rewrites: { name: string; headers: Record<string, unknown> }[] = [
        { name: "number", headers: { authorization: 42, "x-remote-user": 42 } },
        { name: "object", headers: { authorization: { toString: 1 }, "x-remote-user": {} } },
        { name: "null", headers: { authorization: null, "x-remote-user": null } },
        { name: "list of non-strings", headers: { authorization: [1, null], "x-remote-user": [[], 2] } },
        { name: "empty list", headers: { authorization: [], "x-remote-user": [] } },
        {
          name: "prototype keys",
          headers: JSON.parse('{"__proto__":{"authorization":"x"},"x-remote-extra-__proto__":"y"}'),
        },
        { name: "no prototype", headers: Object.create(null) as Record<string, unknown> },
      ];
      for (const r of rewrites) {
        // The valid credential's certificate stays on the connection: only headers are wrong.
        const outcome = await server.probe(
          fx.authenticator,
          { certPem: fx.valid.certPem, keyPem: fx.valid.keyPem },
          {
            rewrite: (req) => ({ ...req, headers: r.headers as AuthenticationRequest["headers"] }),
          },
        );
        assertAnswered(outcome, r.name);
        assertNoSecrets(outcome, fx.secrets);
      }
    });
  });
}

/** The union's answer as an AuthenticationResult, to run it through the probe. */
async function unionAsResult(
  authenticators: readonly Authenticator[],
  req: AuthenticationRequest,
  anonymousAllowed = false,
): Promise<AuthenticationResult> {
  const result = await authenticate(authenticators, req, anonymousAllowed);
  return "user" in result
    ? { kind: "user", user: result.user }
    : { kind: "rejected", reason: result.rejected };
}
