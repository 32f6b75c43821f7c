// `npm start`: load settings, create first-start credentials, open storage, serve.
import { readFile } from "node:fs/promises";
import { pino } from "pino";
import { builtinKinds } from "../backends/builtin/index.ts";
import { startCompactor } from "../backends/compaction/compactor.ts";
import { openStorage } from "../backends/factory.ts";
import { naming as namingPreset } from "../backends/naming/index.ts";
import { FeatureGateError, resolveFeatureGates } from "../config/feature-gates.ts";
import { loadOptions, OptionError, type ServerOptions, usage } from "../config/options.ts";
import { RuntimeConfigError, runtimeConfig } from "../config/runtime-config.ts";
import { x509Authenticator } from "../plugins/authentication/index.ts";
import {
  ControllerClient,
  NamespaceController,
  ServiceAccountController,
} from "../plugins/controllers/index.ts";
import { defaultPipeline, registerApi } from "./api-routes.ts";
import { fileAuditLog } from "./audit/audit-stage.ts";
import { startControlPlane } from "./control-plane.ts";
import { DiscoveryCache } from "./discovery/index.ts";
import { discoveryResponder, registerVersion } from "./discovery-routes.ts";
import { Codec } from "./handlers/codec.ts";
import { closeAllWatches } from "./handlers/watch.ts";
import { registerHealth } from "./health.ts";
import { logCheck } from "./log-check.ts";
import { registerOpenApi } from "./openapi-routes.ts";
import { bootstrapPki } from "./pki/bootstrap.ts";
import { issueCertificate, loadAuthority } from "./pki/certificates.ts";
import { createServer } from "./server.ts";

async function main(options: ServerOptions): Promise<void> {
  const log = pino({ name: "cluster-gateway" });
  const gates = resolveFeatureGates(options.featureGates);
  const naming = namingPreset(options.apiNaming);
  const host = options.bindAddress.includes(":") ? `[${options.bindAddress}]` : options.bindAddress;
  const serverUrl = `https://${host === "0.0.0.0" || host === "[::]" ? "127.0.0.1" : host}:${options.securePort}`;
  const pki = await bootstrapPki({
    dataDir: options.dataDir,
    tlsSans: options.tlsSans,
    serverUrl,
    servingProvided: options.tlsCertFile !== undefined,
  });
  for (const file of pki.created) log.info({ file }, "generated");
  const tls = {
    certPem: await readFile(options.tlsCertFile ?? pki.paths.servingCert, "utf8"),
    keyPem: await readFile(options.tlsPrivateKeyFile ?? pki.paths.servingKey, "utf8"),
    clientCaPem: await readFile(options.clientCAFile ?? pki.paths.caCert, "utf8"),
  };

  const storage = await openStorage({
    backend: options.storageBackend,
    dataDir: options.dataDir,
    sync: options.storageSync,
    etcd: {
      endpoints: options.etcdServers,
      caFile: options.etcdCAFile,
      certFile: options.etcdCertFile,
      keyFile: options.etcdKeyFile,
    },
  });
  const compactor = startCompactor(storage, options.compactionInterval, (err) =>
    log.warn({ err }, "compaction failed"),
  );

  const controlPlane = await startControlPlane({
    storage,
    naming,
    kinds: builtinKinds(naming),
    historyWindowMs: options.compactionInterval,
    maxHistory: options.watchCacheHistory,
    watchListEnabled: gates.WatchList === true,
    onError: (err, context) => log.warn({ err, context }, "watch cache"),
  });

  const servedGroupVersions = controlPlane.resources.all.flatMap(({ schema }) =>
    schema.versions
      .filter((v) => v.served)
      .map((v) => ({ group: schema.group, version: v.name, resources: [schema.plural] })),
  );
  controlPlane.resources.setEnabled(
    runtimeConfig(options.runtimeConfig, mergeGroupVersions(servedGroupVersions)),
  );

  let shuttingDown = false;
  const controllers: { synced: boolean }[] = [];
  const storageCheck = async () => {
    await storage.currentRevision();
  };
  const cacheCheck = () => {
    if (!controlPlane.cachesReady()) throw new Error("a watch cache is not in sync with storage");
  };
  const discovery = new DiscoveryCache(
    { naming, serverAddress: serverUrl.slice("https://".length) },
    controlPlane.resources.schemas,
  );
  let discoveryGeneration = controlPlane.resources.generation;
  const currentDiscovery = () => {
    if (discoveryGeneration !== controlPlane.resources.generation) {
      discoveryGeneration = controlPlane.resources.generation;
      discovery.update(controlPlane.resources.schemas);
    }
    return discovery;
  };
  const auditLog = options.auditLogPath ? fileAuditLog(options.auditLogPath) : undefined;
  const app = createServer(tls, log);
  registerVersion(app);
  registerOpenApi(app, {
    naming,
    schemas: () => controlPlane.resources.schemas,
    authentication: { authenticators: [x509Authenticator()], anonymousAuth: options.anonymousAuth },
  });
  registerApi(
    app,
    defaultPipeline({
      env: {
        resources: controlPlane.resources,
        naming,
        codec: new Codec(naming),
        watchListEnabled: gates.WatchList === true,
        protectedNamespaces: controlPlane.protectedNamespaces,
      },
      authenticators: [x509Authenticator()],
      anonymousAuth: options.anonymousAuth,
      discovery: discoveryResponder(naming, currentDiscovery),
      inflight: { readOnly: options.maxRequestsInflight, mutating: options.maxMutatingRequestsInflight },
      naming,
      ...(auditLog ? { auditLog } : {}),
    }),
  );
  registerHealth(
    app,
    {
      livez: new Map([
        ["ping", () => {}],
        ["log", logCheck(process.stdout)],
        ["storage", storageCheck],
      ]),
      readyz: new Map([
        ["ping", () => {}],
        ["log", logCheck(process.stdout)],
        ["storage", storageCheck],
        ["cacher-sync", cacheCheck],
        [
          "controllers",
          () => {
            if (!controllers.every((c) => c.synced)) throw new Error("controllers have not synced yet");
          },
        ],
        [
          "shutdown",
          () => {
            if (shuttingDown) throw new Error("the server is shutting down");
          },
        ],
      ]),
    },
    { livezGracePeriodMs: options.livezGracePeriod },
  );
  await app.listen({ host: options.bindAddress, port: options.securePort });

  // Controllers are API clients on loopback with identities of their own.
  const ca = await loadAuthority(
    await readFile(pki.paths.caCert, "utf8"),
    await readFile(pki.paths.caKey, "utf8"),
  );
  const loopbackHost = host === "0.0.0.0" ? "127.0.0.1" : host === "[::]" ? "[::1]" : host;
  const controllerClient = async (name: string) => {
    const cert = await issueCertificate(ca, {
      commonName: `system:controller:${name}`,
      usage: "client",
      validDays: 30,
    });
    return new ControllerClient({
      server: `https://${loopbackHost}:${options.securePort}`,
      caPem: ca.certPem,
      certPem: cert.certPem,
      keyPem: cert.keyPem,
    });
  };
  const stopControllers = new AbortController();
  const onControllerError = (err: unknown, context: string) => log.warn({ err, context }, "controller");
  const namespaceController = new NamespaceController(
    await controllerClient("namespace-controller"),
    naming.productName,
    onControllerError,
  );
  const serviceAccountController = new ServiceAccountController(
    await controllerClient("serviceaccount-controller"),
    onControllerError,
  );
  controllers.push(namespaceController, serviceAccountController);
  const controllerRuns = [
    namespaceController.run(stopControllers.signal),
    serviceAccountController.run(stopControllers.signal),
  ];
  log.info(
    { url: serverUrl, storage: storage.name },
    `serving; try: kubectl --kubeconfig ${pki.paths.adminKubeconfig} get --raw='/readyz?verbose'`,
  );

  const shutdown = async (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    log.info({ signal, delayMs: options.shutdownDelayDuration }, "shutting down");
    await new Promise((resolve) => setTimeout(resolve, options.shutdownDelayDuration));
    stopControllers.abort();
    await Promise.allSettled(controllerRuns);
    closeAllWatches();
    await app.close();
    await controlPlane.stop();
    await auditLog?.close();
    compactor.stop();
    await storage.close();
    log.info("stopped");
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

/** One entry per group version with all its resources. */
function mergeGroupVersions(list: { group: string; version: string; resources: string[] }[]) {
  const merged = new Map<string, { group: string; version: string; resources: string[] }>();
  for (const gv of list) {
    const key = `${gv.group}/${gv.version}`;
    const entry = merged.get(key);
    if (entry) entry.resources.push(...gv.resources);
    else merged.set(key, { ...gv, resources: [...gv.resources] });
  }
  return [...merged.values()];
}

let options: ServerOptions;
try {
  options = loadOptions(process.argv.slice(2));
} catch (err) {
  if (!(err instanceof OptionError)) throw err;
  process.stderr.write(`error: ${err.message}\n\n${usage()}\n`);
  process.exit(2);
}
if (options.help) {
  process.stdout.write(`${usage()}\n`);
  process.exit(0);
}
main(options).catch((err: unknown) => {
  if (err instanceof FeatureGateError || err instanceof RuntimeConfigError) {
    const flag = err instanceof FeatureGateError ? "--feature-gates" : "--runtime-config";
    process.stderr.write(`error: ${flag}: ${err.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`fatal: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
