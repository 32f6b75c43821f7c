// For tests: a real HTTPS gateway in this process serving the built-in and RBAC kinds over
// MemoryStorage and authorizing with system:masters then RBAC, with a CA made here, and API
// clients holding certificates it issues.
import { builtinKinds, builtinRbacKinds } from "../../../backends/builtin/index.ts";
import { MemoryStorage } from "../../../backends/memory/index.ts";
import { type Naming, naming as namingPreset } from "../../../backends/naming/index.ts";
import { startAdmission } from "../../../gateway/admission/setup.ts";
import { defaultPipeline, registerApi } from "../../../gateway/api-routes.ts";
import { type ControlPlane, startControlPlane } from "../../../gateway/control-plane.ts";
import { Codec } from "../../../gateway/handlers/codec.ts";
import { objectAccess } from "../../../gateway/object-access.ts";
import { createAuthority, issueCertificate } from "../../../gateway/pki/certificates.ts";
import { createServer } from "../../../gateway/server.ts";
import { x509Authenticator } from "../../authentication/index.ts";
import { ControllerClient } from "../../controllers/index.ts";
import type { ObjectAccess } from "../../objects/index.ts";
import { privilegedGroups, unionAuthorizer } from "../index.ts";
import { RbacAuthorizer } from "./rbac-authorizer.ts";

export interface TestGateway {
  readonly naming: Naming;
  readonly server: string;
  readonly plane: ControlPlane;
  readonly access: ObjectAccess;
  readonly rbac: RbacAuthorizer;
  /** An API client authenticated by a client certificate with this name and organizations. */
  client(commonName: string, groups?: readonly string[]): Promise<ControllerClient>;
  stop(): Promise<void>;
}

export async function startTestGateway(preset: "cluster" | "kubernetes" = "cluster"): Promise<TestGateway> {
  const naming = namingPreset(preset);
  const storage = new MemoryStorage();
  const fail = (err: unknown) => {
    throw err instanceof Error ? err : new Error(String(err));
  };
  const plane = await startControlPlane({
    storage,
    naming,
    kinds: [...builtinKinds(naming), ...builtinRbacKinds(naming)],
    historyWindowMs: 60_000,
    maxHistory: 10_000,
    watchListEnabled: false,
    onError: fail,
  });
  const stopInformers = new AbortController();
  const access = objectAccess(plane.resources, stopInformers.signal, fail);
  const rbac = new RbacAuthorizer(access, naming);
  await rbac.synced;
  const ca = await createAuthority("test-ca");
  const serving = await issueCertificate(ca, {
    commonName: "gateway",
    usage: "server",
    altNames: ["127.0.0.1"],
  });
  const app = createServer(
    { certPem: serving.certPem, keyPem: serving.keyPem, clientCaPem: ca.certPem },
    false,
  );
  registerApi(
    app,
    defaultPipeline({
      env: {
        resources: plane.resources,
        naming,
        codec: new Codec(naming),
        watchListEnabled: false,
        admission: await startAdmission({
          naming,
          resources: plane.resources,
          objects: access,
          authorizer: rbac,
          only: ["NamespaceLifecycle"],
          signal: stopInformers.signal,
        }),
      },
      authenticators: [x509Authenticator()],
      anonymousAuth: true,
      authorizer: unionAuthorizer([privilegedGroups(), rbac]),
      naming,
    }),
  );
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  const server = `https://127.0.0.1:${port}`;
  const clients: ControllerClient[] = [];
  return {
    naming,
    server,
    plane,
    access,
    rbac,
    async client(commonName, groups = []) {
      const cert = await issueCertificate(ca, { commonName, organizations: groups, usage: "client" });
      const client = new ControllerClient({
        server,
        caPem: ca.certPem,
        certPem: cert.certPem,
        keyPem: cert.keyPem,
      });
      clients.push(client);
      return client;
    },
    async stop() {
      rbac.close();
      stopInformers.abort();
      await Promise.all(clients.map((c) => c.close()));
      await app.close();
      await plane.stop();
      await storage.close();
    },
  };
}
