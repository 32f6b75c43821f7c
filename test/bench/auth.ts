// Authentication + authorization cost per request: `node test/bench/auth.ts [--quick]`.
//
// Builds security the way the gateway does (gateway/security.ts buildSecurity with the default
// options plus a token file: request-header, x509 and bearer authenticators, the bearer one over
// the cached union of token file and service-account tokens; the authorizer union of privileged
// groups, Node and RBAC) over the 1,000 RBAC bindings of rbac-fixtures.ts, with first-start
// credentials made by gateway/pki/bootstrap.ts. Then times, in-process, what the access stages
// do per request: `authenticate(authenticators, {headers, headersDistinct, socket}, true)` and
// `authorizer.authorize(attributes)` of an allowed request (get configmaps in a namespace,
// granted through a RoleBinding), for three credentials:
//   - a client certificate on a real TLS connection over 127.0.0.1, the server-side socket
//     reused for every call as on a kept-alive connection;
//   - a static token of a real token file;
//   - a bound service-account token (TokenRequest) of an account in the registry: cached after
//     the first call, and for information uncached (a fresh token per call, and the bare
//     service-account authenticator alone).
// Baselines in the same run: authorize() alone and an empty async call. Warm-up, then rounds in
// rotating order; each figure is the median over rounds of that round's p50 / p99. Not a test:
// nothing is asserted on times.

import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, createServer, type Server, type TLSSocket } from "node:tls";
import { DEFAULTS, type ServerOptions } from "../../config/options.ts";
import type { UserInfo } from "../../gateway/pipeline/index.ts";
import { bootstrapPki } from "../../gateway/pki/bootstrap.ts";
import { issueCertificate, loadAuthority } from "../../gateway/pki/certificates.ts";
import { buildSecurity } from "../../gateway/security.ts";
import {
  type AuthenticationRequest,
  authenticate,
  createTokenRequest,
  readVerificationKeys,
  serviceAccountTokenAuthenticator,
} from "../../plugins/authentication/index.ts";
import type { Attributes } from "../../plugins/authorization/index.ts";
import { median, percentile } from "./fixtures.ts";
import {
  BINDINGS,
  benchNaming,
  benchUser,
  bindingsIndexed,
  type RbacFixture,
  resourceAttributes,
  roleBindingGrant,
  startRbacFixture,
} from "./rbac-fixtures.ts";

const USAGE = "usage: node test/bench/auth.ts [--quick]";
const args = process.argv.slice(2);
for (const arg of args) {
  if (arg === "--help" || arg === "-h") {
    console.log(USAGE);
    process.exit(0);
  }
  if (arg !== "--quick") {
    console.error(`unknown argument ${arg}\n${USAGE}`);
    process.exit(2);
  }
}
const quick = args.includes("--quick");
const ROUNDS = quick ? 5 : 7;
/** Timed calls per case and round (cheap cases); warm-up calls per case. */
const SAMPLES = quick ? 3_000 : 50_000;
const WARMUP = quick ? 2_000 : 20_000;
/** Uncached cases cost a signature check each; a fresh token also costs a signing up front. */
const FRESH_SAMPLES = quick ? 60 : 300;
const FRESH_WARMUP = quick ? 20 : 50;
const BARE_SAMPLES = quick ? 300 : 3_000;
const TOKEN_FILE_RECORDS = 100;
const TARGET_US = 30;

const CONFIGMAPS = { group: "", resource: "configmaps" };
const SERVICE_ACCOUNTS = { group: "", resource: "serviceaccounts" };

interface Case {
  readonly name: string;
  /** Rows whose p50 the target speaks of. */
  readonly target: boolean;
  /** The authorize()-alone row this row compares with. */
  readonly base?: string;
  readonly samples: number;
  readonly warmup: number;
  run(): Promise<unknown>;
}

interface RoundFigures {
  readonly p50: number;
  readonly p99: number;
}

/** What a client sends besides its credential (Node's view: lower-case names). */
function requestHeaders(authorization?: string): {
  headers: Record<string, string>;
  headersDistinct: Record<string, string[]>;
} {
  const headers: Record<string, string> = {
    host: "127.0.0.1:6443",
    "user-agent": "kubectl/v1.27.4 (linux/amd64) kubernetes/fa3d799",
    accept: "application/json, */*",
    "accept-encoding": "gzip",
    ...(authorization ? { authorization } : {}),
  };
  const headersDistinct = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]]));
  return { headers, headersDistinct };
}

/** A TLS connection to `server`; resolves with the server's side once both ends are up. */
async function serverSocket(
  server: Server,
  options: { ca: string; cert?: string; key?: string },
): Promise<{ server: TLSSocket; client: TLSSocket }> {
  const accepted = new Promise<TLSSocket>((resolve) => server.once("secureConnection", resolve));
  const port = (server.address() as AddressInfo).port;
  const client = connect({ host: "127.0.0.1", port, ...options });
  client.on("error", (err) => console.error("bench client connection:", err.message));
  await new Promise<void>((resolve, reject) => {
    client.once("secureConnect", resolve);
    client.once("error", reject);
  });
  const socket = await accepted;
  socket.on("error", (err) => console.error("bench server connection:", err.message));
  return { server: socket, client };
}

async function waitFor(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function sample(c: Case, n: number): Promise<Float64Array> {
  const times = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const start = process.hrtime.bigint();
    await c.run();
    times[i] = Number(process.hrtime.bigint() - start) / 1000;
  }
  return times;
}

const fmt = (us: number): string => (us >= 100 ? us.toFixed(0) : us.toFixed(2));

async function main(): Promise<void> {
  const started = performance.now();
  const dir = await mkdtemp(join(tmpdir(), "auth-bench-"));
  const cleanups: (() => unknown)[] = [() => rm(dir, { recursive: true, force: true })];
  let fixture: RbacFixture | undefined;
  try {
    // ---- credentials, as the gateway makes them on first start --------------------------------
    const pki = await bootstrapPki({ dataDir: dir, serverUrl: "https://127.0.0.1:6443" });
    const { paths } = pki;
    const caPem = await readFile(paths.caCert, "utf8");
    const frontProxyCaPem = await readFile(paths.frontProxyCaCert, "utf8");

    // ---- RBAC objects and the subjects granted get configmaps through a RoleBinding -----------
    fixture = await startRbacFixture();
    const { access } = fixture;
    const userGrant = roleBindingGrant("User", "get", "configmaps");
    const saGrant = roleBindingGrant("ServiceAccount", "get", "configmaps");
    const saNamespace = saGrant.subject.namespace!;
    const saName = saGrant.subject.name;
    await fixture.create("", "serviceaccounts", saNamespace, { metadata: { name: saName } });
    await waitFor(
      async () => (await access.get(SERVICE_ACCOUNTS, saNamespace, saName)) !== undefined,
      "the service account in object access",
    );

    // ---- a token file: the bench user among other records -------------------------------------
    const userToken = randomBytes(24).toString("base64url");
    const records: string[] = [];
    for (let i = 0; i < TOKEN_FILE_RECORDS; i++) {
      records.push(
        i === TOKEN_FILE_RECORDS / 2
          ? `${userToken},${userGrant.subject.name},uid-bench,"developers"`
          : `${randomBytes(24).toString("base64url")},static-${i},uid-${i},"developers,staff"`,
      );
    }
    const tokenFile = join(dir, "tokens.csv");
    await writeFile(tokenFile, `${records.join("\n")}\n`, { mode: 0o600 });

    // ---- security as buildSecurity assembles it -----------------------------------------------
    const options: ServerOptions = { ...DEFAULTS, dataDir: dir, tokenAuthFile: tokenFile };
    const security = await buildSecurity(
      options,
      { clientCaPem: caPem, frontProxyCaPem, saKey: paths.saKey, saPub: paths.saPub },
      benchNaming,
      access,
      {
        info: () => {},
        warn: (fields, message) => console.error(message, fields),
      },
    );
    cleanups.push(() => security.close());
    await security.synced;
    const rbac = security.rbac;
    if (!rbac) throw new Error("RBAC is not among the default authorization modes");
    await bindingsIndexed(() => rbac.bindingCount);

    // ---- a TLS listener as the gateway's, and two kept-alive connections ------------------------
    const serving = {
      cert: await readFile(paths.servingCert, "utf8"),
      key: await readFile(paths.servingKey, "utf8"),
    };
    const server = createServer({
      ...serving,
      ca: `${caPem.trim()}\n${frontProxyCaPem.trim()}\n`,
      requestCert: true,
      rejectUnauthorized: false,
      minVersion: "TLSv1.2",
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => new Promise((resolve) => server.close(resolve)));
    const clientCert = await issueCertificate(
      await loadAuthority(caPem, await readFile(paths.caKey, "utf8")),
      {
        commonName: userGrant.subject.name,
        organizations: ["developers"],
        usage: "client",
      },
    );
    const withCert = await serverSocket(server, {
      ca: caPem,
      cert: clientCert.certPem,
      key: clientCert.keyPem,
    });
    const withoutCert = await serverSocket(server, { ca: caPem });
    for (const c of [withCert, withoutCert]) {
      cleanups.push(() => {
        c.client.destroy();
        c.server.destroy();
      });
    }

    // ---- service-account tokens from the TokenRequest code path --------------------------------
    const tokenSettings = {
      naming: benchNaming,
      issuer: security.issuer,
      apiAudiences: security.apiAudiences,
      maxExpirationMs: 0,
    };
    // Distinct expirations make distinct tokens (RS256 signatures are deterministic).
    let expiration = 3600;
    const issue = async (): Promise<string> => {
      const { tokenRequest } = await createTokenRequest(
        access,
        security.signer,
        tokenSettings,
        saNamespace,
        saName,
        { spec: { expirationSeconds: expiration++ } },
      );
      return (tokenRequest.status as { token: string }).token;
    };
    const saToken = await issue();
    const signStarted = performance.now();
    const freshTokens: string[] = [];
    for (let i = 0; i < FRESH_WARMUP + ROUNDS * FRESH_SAMPLES; i++) freshTokens.push(await issue());
    const signMs = (performance.now() - signStarted) / freshTokens.length;
    let nextFresh = 0;

    const bareServiceAccounts = serviceAccountTokenAuthenticator({
      naming: benchNaming,
      keys: await readVerificationKeys([paths.saPub]),
      issuers: [security.issuer],
      apiAudiences: security.apiAudiences,
      lookup: options.serviceAccountLookup,
      access,
    });

    // ---- the request each case makes ------------------------------------------------------------
    const attributesFor = (user: UserInfo, namespace: string): Attributes =>
      resourceAttributes(user, "get", CONFIGMAPS.group, CONFIGMAPS.resource, namespace, "settings");
    const expected = {
      user: userGrant.subject.name,
      sa: `system:serviceaccount:${saNamespace}:${saName}`,
    };
    const requestOf = (socket: TLSSocket, authorization?: string): AuthenticationRequest => ({
      ...requestHeaders(authorization),
      socket,
    });
    const certRequest = requestOf(withCert.server);
    const staticRequest = requestOf(withoutCert.server, `Bearer ${userToken}`);
    const saRequest = requestOf(withoutCert.server, `Bearer ${saToken}`);

    /** One request: authenticate as the access stage does, then authorize; anything else throws. */
    const serve = async (req: AuthenticationRequest, namespace: string, username: string): Promise<void> => {
      const result = await authenticate(security.authenticators, req, options.anonymousAuth);
      if ("rejected" in result) throw new Error(`authentication rejected: ${result.rejected}`);
      const decision = await security.authorizer.authorize(attributesFor(result.user, namespace));
      if (decision.decision !== "allow" || result.user.username !== username) {
        throw new Error(`${result.user.username}: ${decision.decision} (${decision.reason})`);
      }
    };
    const authorizeAlone = async (attributes: Attributes): Promise<void> => {
      const decision = await security.authorizer.authorize(attributes);
      if (decision.decision !== "allow") throw new Error(`authorize alone: ${decision.decision}`);
    };
    const userAttributes = attributesFor(benchUser(expected.user, ["developers"]), userGrant.namespace);
    const saAttributes = attributesFor(
      benchUser(expected.sa, ["system:serviceaccounts", `system:serviceaccounts:${saNamespace}`]),
      saNamespace,
    );
    const empty = async (): Promise<void> => {};

    const AUTHZ_USER = "authorize() alone, user";
    const AUTHZ_SA = "authorize() alone, service account";
    const cases: Case[] = [
      { name: "empty async call", target: false, samples: SAMPLES, warmup: WARMUP, run: empty },
      {
        name: AUTHZ_USER,
        target: false,
        samples: SAMPLES,
        warmup: WARMUP,
        run: () => authorizeAlone(userAttributes),
      },
      {
        name: AUTHZ_SA,
        target: false,
        samples: SAMPLES,
        warmup: WARMUP,
        run: () => authorizeAlone(saAttributes),
      },
      {
        name: "client certificate (kept-alive TLS)",
        target: true,
        base: AUTHZ_USER,
        samples: SAMPLES,
        warmup: WARMUP,
        run: () => serve(certRequest, userGrant.namespace, expected.user),
      },
      {
        name: "  socket.getPeerCertificate() alone (no authn)",
        target: false,
        samples: SAMPLES,
        warmup: WARMUP,
        run: async () => {
          if (!withCert.server.getPeerCertificate().subject) throw new Error("no peer certificate");
        },
      },
      {
        name: "static token (token file, cached)",
        target: true,
        base: AUTHZ_USER,
        samples: SAMPLES,
        warmup: WARMUP,
        run: () => serve(staticRequest, userGrant.namespace, expected.user),
      },
      {
        name: "service-account JWT (cached)",
        target: true,
        base: AUTHZ_SA,
        samples: SAMPLES,
        warmup: WARMUP,
        run: () => serve(saRequest, saNamespace, expected.sa),
      },
      {
        name: "service-account JWT, fresh token (uncached)",
        target: false,
        base: AUTHZ_SA,
        samples: FRESH_SAMPLES,
        warmup: FRESH_WARMUP,
        run: () => {
          const token = freshTokens[nextFresh++];
          if (token === undefined) throw new Error("out of fresh tokens");
          return serve(requestOf(withoutCert.server, `Bearer ${token}`), saNamespace, expected.sa);
        },
      },
      {
        name: "  SA authenticator alone (bare, uncached, no authz)",
        target: false,
        samples: BARE_SAMPLES,
        warmup: FRESH_WARMUP,
        run: async () => {
          const result = await bareServiceAccounts.authenticateToken(saToken, security.apiAudiences);
          if (result.kind !== "user") throw new Error(`bare service-account authenticator: ${result.kind}`);
        },
      },
    ];

    // ---- warm-up, then rounds in rotating order --------------------------------------------------
    const setupMs = performance.now() - started;
    process.stderr.write(`set up in ${(setupMs / 1000).toFixed(1)} s; warming up\n`);
    for (const c of cases) await sample(c, c.warmup);
    const figures = new Map<string, RoundFigures[]>(cases.map((c) => [c.name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      process.stderr.write(`round ${round + 1}/${ROUNDS}\n`);
      for (let k = 0; k < cases.length; k++) {
        const c = cases[(round + k) % cases.length]!;
        const times = await sample(c, c.samples);
        figures.get(c.name)!.push({ p50: percentile(times, 50), p99: percentile(times, 99) });
      }
    }

    // ---- report ------------------------------------------------------------------------------------
    const rounds = (name: string) => figures.get(name)!;
    const emptyP50 = rounds("empty async call").map((f) => f.p50);
    console.log(
      `auth + authz per request, in-process; RBAC over ${rbac.bindingCount} bindings (${BINDINGS} created); ` +
        `authorizers: privileged groups, ${options.authorizationModes.join(", ")}; ` +
        `authenticators: ${security.authenticators.map((a) => a.name).join(", ")}; ` +
        `token file of ${TOKEN_FILE_RECORDS} records; set up in ${(setupMs / 1000).toFixed(1)} s ` +
        `(RS256 signing ${signMs.toFixed(2)} ms per token, outside the timings)`,
    );
    console.log(
      `request: get configmaps in a namespace, granted through RoleBinding ${userGrant.binding} ` +
        `(user ${expected.user}) / ${saGrant.binding} (${expected.sa})`,
    );
    console.log(
      `${ROUNDS} rounds after warm-up; per round ${SAMPLES} calls per case (fresh tokens ${FRESH_SAMPLES}, ` +
        `bare SA ${BARE_SAMPLES}); figures: median over rounds [p50 range over rounds]`,
    );
    const header = [
      "case".padEnd(52),
      "p50 µs".padStart(9),
      "p99 µs".padStart(9),
      "p50 range".padStart(16),
      "x authz".padStart(9),
      "x empty".padStart(9),
      "  target",
    ].join("");
    console.log(header);
    console.log("-".repeat(header.length));
    for (const c of cases) {
      const f = rounds(c.name);
      const p50s = f.map((x) => x.p50);
      const p50 = median(p50s);
      const p99 = median(f.map((x) => x.p99));
      const range = `${fmt(Math.min(...p50s))}-${fmt(Math.max(...p50s))}`;
      const base = c.base ? rounds(c.base).map((x) => x.p50) : undefined;
      const xAuthz = base ? median(p50s.map((v, i) => v / base[i]!)).toFixed(1) : "-";
      const xEmpty = median(p50s.map((v, i) => v / emptyP50[i]!)).toFixed(1);
      const verdict = c.target ? (p50 <= TARGET_US ? "met" : "MISS") : "info";
      console.log(
        [
          c.name.padEnd(52),
          fmt(p50).padStart(9),
          fmt(p99).padStart(9),
          range.padStart(16),
          xAuthz.padStart(9),
          xEmpty.padStart(9),
          `  ${verdict}`,
        ].join(""),
      );
    }
    console.log(`target: cached decision with 1,000 RBAC bindings: p50 ≤ ${TARGET_US} µs`);
    console.log(
      "x authz: p50 / p50 of authorize() alone for the same subject; x empty: p50 / p50 of an empty async call (per-round ratios, median)",
    );
  } finally {
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch (err) {
        console.error("clean-up:", err);
      }
    }
    await fixture?.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
