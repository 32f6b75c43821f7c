// For tests: a real HTTPS gateway in this process (built-in kinds over MemoryStorage, a CA made
// here) with every route behind the access stages, and clients holding certificates it issues,
// certificates from a CA it does not trust, or none at all.

import { Agent, request } from "undici";
import { builtinKinds } from "../../backends/builtin/index.ts";
import { MemoryStorage } from "../../backends/memory/index.ts";
import { type Naming, naming as namingPreset } from "../../backends/naming/index.ts";
import { x509Authenticator } from "../../plugins/authentication/index.ts";
import type { Authorizer } from "../../plugins/authorization/index.ts";
import { startAdmission } from "../admission/setup.ts";
import { defaultPipeline, registerApi } from "../api-routes.ts";
import { parsePolicy } from "../audit/index.ts";
import { startControlPlane } from "../control-plane.ts";
import { registerVersion } from "../discovery-routes.ts";
import { Codec } from "../handlers/codec.ts";
import { registerHealth } from "../health.ts";
import { objectAccess } from "../object-access.ts";
import { registerOpenApi } from "../openapi-routes.ts";
import { type Authority, createAuthority, issueCertificate } from "../pki/certificates.ts";
import { createServer } from "../server.ts";
import { accessGuard, registerNotFound } from "./guard.ts";
import { verbAuthorizer } from "./stage.ts";

export interface TestResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are inspected field by field
  readonly body: any;
}

export interface TestClient {
  call(
    method: string,
    path: string,
    options?: { headers?: Record<string, string | string[]>; body?: unknown; raw?: string },
  ): Promise<TestResponse>;
}

export interface AccessTestGateway {
  readonly naming: Naming;
  readonly server: string;
  /** Audit events written so far, oldest first. */
  readonly audit: Record<string, unknown>[];
  /** A client with a certificate for this user and groups. */
  client(commonName: string, groups?: readonly string[]): Promise<TestClient>;
  /** A client with a certificate the gateway does not trust. */
  foreign(commonName: string): Promise<TestClient>;
  /** A client without credentials. */
  anonymous(): TestClient;
  stop(): Promise<void>;
}

export async function startAccessGateway(options: {
  readonly authorizer: Authorizer;
  readonly anonymousAuth?: boolean;
  readonly preset?: "cluster" | "kubernetes";
}): Promise<AccessTestGateway> {
  const naming = namingPreset(options.preset ?? "cluster");
  const plane = await startControlPlane({
    storage: new MemoryStorage(),
    naming,
    kinds: builtinKinds(naming),
    historyWindowMs: 60_000,
    maxHistory: 1000,
    watchListEnabled: false,
    onError: (err) => {
      throw err instanceof Error ? err : new Error(String(err));
    },
  });
  const stopAdmission = new AbortController();
  // Namespace lifecycle only: these gateways test access, not the other plugins.
  const admission = await startAdmission({
    naming,
    resources: plane.resources,
    objects: objectAccess(plane.resources, stopAdmission.signal, () => {}),
    authorizer: options.authorizer,
    only: ["NamespaceLifecycle"],
    signal: stopAdmission.signal,
  });
  const ca = await createAuthority("test-ca");
  const serving = await issueCertificate(ca, {
    commonName: "gateway",
    usage: "server",
    altNames: ["127.0.0.1"],
  });
  const audit: Record<string, unknown>[] = [];
  const access = {
    authenticators: [x509Authenticator()],
    anonymousAuth: options.anonymousAuth ?? true,
    authorizer: options.authorizer,
    naming,
    // The default policy file's: every request at Metadata, once it completes.
    auditor: {
      policy: parsePolicy(
        `{apiVersion: ${naming.group("audit")}/v1, kind: Policy, omitStages: [RequestReceived], rules: [{level: Metadata}]}`,
        naming,
      ),
      apiVersion: `${naming.group("audit")}/v1`,
      backend: {
        process: (events: readonly Record<string, unknown>[]) => audit.push(...events) >= 0,
        shutdown: async () => {},
      },
    },
  };
  const app = createServer(
    { certPem: serving.certPem, keyPem: serving.keyPem, clientCaPem: ca.certPem },
    false,
  );
  registerApi(
    app,
    defaultPipeline({
      ...access,
      env: {
        resources: plane.resources,
        naming,
        codec: new Codec(naming),
        watchListEnabled: false,
        admission,
        authorizeVerb: verbAuthorizer(options.authorizer),
      },
    }),
  );
  const guard = accessGuard(access);
  const ping = new Map([["ping", () => {}]]);
  registerHealth(app, { livez: ping, readyz: ping }, { guard });
  registerVersion(app, guard);
  registerOpenApi(app, { naming, schemas: () => plane.resources.schemas, guard });
  registerNotFound(app, guard);
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  const server = `https://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;

  const agents: Agent[] = [];
  const clientWith = (cert?: { certPem: string; keyPem: string }): TestClient => {
    const agent = new Agent({
      connect: { ca: ca.certPem, ...(cert ? { cert: cert.certPem, key: cert.keyPem } : {}) },
    });
    agents.push(agent);
    return {
      async call(method, path, { headers = {}, body, raw } = {}) {
        const text = raw ?? (body === undefined ? undefined : JSON.stringify(body));
        const res = await request(`${server}${path}`, {
          method: method as "GET",
          headers: text === undefined ? headers : { "content-type": "application/json", ...headers },
          ...(text === undefined ? {} : { body: text }),
          dispatcher: agent,
        });
        const answer = await res.body.text();
        let parsed: unknown;
        try {
          parsed = answer ? JSON.parse(answer) : undefined;
        } catch {
          parsed = undefined;
        }
        return { status: res.statusCode, headers: res.headers, text: answer, body: parsed };
      },
    };
  };
  let otherCa: Authority | undefined;
  return {
    naming,
    server,
    audit,
    async client(commonName, groups = []) {
      return clientWith(await issueCertificate(ca, { commonName, organizations: groups, usage: "client" }));
    },
    async foreign(commonName) {
      otherCa ??= await createAuthority("other-ca");
      return clientWith(await issueCertificate(otherCa, { commonName, usage: "client" }));
    },
    anonymous: () => clientWith(),
    async stop() {
      stopAdmission.abort();
      await Promise.all(agents.map((a) => a.close()));
      await app.close();
      await plane.stop();
    },
  };
}
