// `npm start`: load settings, create first-start credentials, open storage, serve.
import { readFile } from "node:fs/promises";
import { dirname } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { RemoteBackend } from "../backends/aggregator/index.ts";
import { builtinKinds, builtinRbacKinds, ServiceAllocator } from "../backends/builtin/index.ts";
import { startCompactor } from "../backends/compaction/compactor.ts";
import { EncryptionConfigError } from "../backends/encryption/index.ts";
import { embeddedStoreDir, MongoStartError, openStorage } from "../backends/factory.ts";
import { naming as namingPreset, upstreamNamedClientFeatures } from "../backends/naming/index.ts";
import { DispatcherPool } from "../backends/services/index.ts";
import { FeatureGateError, resolveFeatureGates } from "../config/feature-gates.ts";
import { loadOptions, OptionError, type ServerOptions, usage } from "../config/options.ts";
import { RuntimeConfigError, runtimeConfig } from "../config/runtime-config.ts";
import { reconcileBootstrapPolicy } from "../plugins/authorization/rbac/index.ts";
import {
  ApiServiceRegistrationController,
  AuthenticationTrustController,
  advertiseAddress,
  BootstrapObjectsController,
  BootstrapSigner,
  BootstrapTokenCleaner,
  ClusterInfoPublisher,
  ClusterRoleAggregationController,
  ControllerClient,
  CsrApprovingController,
  CsrCleaner,
  CsrSigningController,
  GarbageCollector,
  KubernetesServiceController,
  LeaderElector,
  loadClusterSigners,
  NamespaceController,
  RootCaPublisher,
  ServiceAccountController,
  SigningAuthorityError,
  StorageProtectionController,
  TokenController,
} from "../plugins/controllers/index.ts";
import { serviceDirectory } from "../plugins/objects/index.ts";
import { AdmissionPluginError } from "./admission/plugins.ts";
import { startAdmission } from "./admission/setup.ts";
import { startAggregation } from "./aggregation.ts";
import { defaultPipeline, registerApi } from "./api-routes.ts";
import { AGGREGATOR, ApiServiceAvailability, remoteGroupVersions } from "./apiservice-availability.ts";
import { AuditConfigError, auditOptions, createAuditor } from "./audit/index.ts";
import { accessGuard, registerNotFound, verbAuthorizer } from "./authorization/index.ts";
import { startControlPlane } from "./control-plane.ts";
import { startCrdRegistrar } from "./crd-registrar.ts";
import { DiscoveryCache } from "./discovery/index.ts";
import { versionInfo } from "./discovery/version.ts";
import { discoveryResponder, registerVersion } from "./discovery-routes.ts";
import { Codec } from "./handlers/codec.ts";
import type { HandlerEnv } from "./handlers/env.ts";
import { closeAllWatches } from "./handlers/watch.ts";
import { registerHealth } from "./health.ts";
import { logCheck } from "./log-check.ts";
import { createLogger, type LogFormat, REQUEST_LOG_LEVEL, registerRequestLog } from "./logging.ts";
import { GatewayMetrics, showHiddenMetricsError } from "./metrics.ts";
import { instrumentStorage, keyResource, registerMetrics } from "./metrics-routes.ts";
import { objectAccess } from "./object-access.ts";
import { RemoteOpenApi } from "./openapi/remote.ts";
import { registerOpenApi } from "./openapi-routes.ts";
import { bootstrapPki } from "./pki/bootstrap.ts";
import { issueCertificate, loadAuthority } from "./pki/certificates.ts";
import { tightenDataDir } from "./pki/data-dir.ts";
import { runInit } from "./pki/init.ts";
import { KubeletClientConfigError, loadKubeletClient } from "./pki/kubelet-client.ts";
import {
  checkSharedCredentials,
  credentialFingerprints,
  SharedCredentialsError,
} from "./pki/shared-credentials.ts";
import { legacyBindings, podBindingAction, podEvictionAction } from "./pod-actions.ts";
import { accessReviews, mergedRules, selfSubjectReviews, tokenReviews } from "./reviews/index.ts";
import { buildSecurity } from "./security.ts";
import { rbacEscalationCheck, tokenRequestAction } from "./security-actions.ts";
import { closeIdleConnections, createServer } from "./server.ts";

async function main(options: ServerOptions): Promise<void> {
  const log = createLogger({ verbosity: options.v, format: options.loggingFormat as LogFormat });
  const gates = resolveFeatureGates(options.featureGates);
  const naming = namingPreset(options.apiNaming);
  if (naming.preset === "cluster")
    log.info({ features: upstreamNamedClientFeatures }, "these client features need --api-naming=kubernetes");
  const host = options.bindAddress.includes(":") ? `[${options.bindAddress}]` : options.bindAddress;
  const serverUrl = `https://${host === "0.0.0.0" || host === "[::]" ? "127.0.0.1" : host}:${options.securePort}`;
  const pki = await bootstrapPki({
    dataDir: options.dataDir,
    ...(options.pkiDir ? { pkiDir: options.pkiDir } : {}),
    tlsSans: options.tlsSans,
    serverUrl,
    servingProvided: options.tlsCertFile !== undefined,
  });
  for (const file of pki.created) log.info({ file }, "generated");
  // The built-in CSR signers' CAs: an unreadable file or a key not matching its certificate stops the start.
  const csrSigners = await loadClusterSigners(options, { cert: pki.paths.caCert, key: pki.paths.caKey });
  const privateEntries = [
    dirname(pki.paths.caCert),
    embeddedStoreDir(options.dataDir),
    pki.paths.adminKubeconfig,
  ];
  for (const { level, msg, ...fields } of [
    ...pki.notices,
    ...(await tightenDataDir(options.dataDir, privateEntries)),
  ]) {
    log[level](fields, msg);
  }
  const clientCaPem = await readFile(options.clientCAFile ?? pki.paths.caCert, "utf8");
  const frontProxyCaPem = await readFile(
    options.requestheaderClientCAFile ?? pki.paths.frontProxyCaCert,
    "utf8",
  );
  const tls = {
    certPem: await readFile(options.tlsCertFile ?? pki.paths.servingCert, "utf8"),
    keyPem: await readFile(options.tlsPrivateKeyFile ?? pki.paths.servingKey, "utf8"),
    // Clients offer only certificates whose issuer the server lists: the proxy's CA goes too.
    clientCaPem: `${clientCaPem.trim()}\n${frontProxyCaPem.trim()}\n`,
  };

  const metrics = new GatewayMetrics({
    processMetrics: true,
    ...(options.showHiddenMetricsForVersion
      ? { showHiddenMetricsForVersion: options.showHiddenMetricsForVersion }
      : {}),
  });
  const storage = await openStorage({
    backend: options.storageBackend,
    dataDir: options.dataDir,
    sync: options.storageSync,
    etcd: {
      endpoints: options.etcdServers,
      caFile: options.etcdCAFile,
      certFile: options.etcdCertFile,
      keyFile: options.etcdKeyFile,
      keyPrefix: options.etcdPrefix,
    },
    mongodb: {
      uri: options.mongodbUri ?? "",
      database: options.mongodbDatabase,
      prefix: options.mongodbPrefix,
      onError: (err, context) => log.warn({ err }, `mongodb: ${context}`),
      metrics: metrics.registry,
    },
    encryption: options.encryptionProviderConfig
      ? {
          configFile: options.encryptionProviderConfig,
          naming,
          automaticReload: options.encryptionProviderConfigAutomaticReload,
          metrics: metrics.registry,
          onReload: (err) =>
            err
              ? log.error(
                  { err: err.message },
                  "encryption provider configuration reload failed; keeping the current one",
                )
              : log.info(
                  { file: options.encryptionProviderConfig },
                  "encryption provider configuration reloaded",
                ),
        }
      : undefined,
  });
  const compactor = startCompactor(storage, options.compactionInterval, (err) =>
    log.warn({ err }, "compaction failed"),
  );

  const controlPlane = await startControlPlane({
    storage: instrumentStorage(storage, metrics),
    naming,
    kinds: [
      ...builtinKinds(naming, {
        serviceRanges: {
          clusterIpRange: options.serviceClusterIpRange,
          nodePortRange: options.serviceNodePortRange,
        },
        serviceRepairIntervalMs: options.serviceAllocationRepairInterval,
        report: (message, err) => log.warn({ err }, message),
        featureGates: gates,
      }),
      ...builtinRbacKinds(naming),
    ],
    historyWindowMs: options.compactionInterval,
    maxHistory: options.watchCacheHistory,
    historyBytes: options.watchCacheHistoryBytes,
    watchListEnabled: gates.WatchList === true,
    onError: (err, context) => log.warn({ err, context }, "watch cache"),
  });

  metrics.countStoredObjects(() =>
    controlPlane.objectCounts().map(([prefix, n]) => [keyResource(prefix), n] as const),
  );

  const stopAccess = new AbortController();
  const access = objectAccess(controlPlane.resources, stopAccess.signal, (err) =>
    log.warn({ err }, "object access"),
  );
  const security = await buildSecurity(
    options,
    { clientCaPem, saKey: pki.paths.saKey, saPub: pki.paths.saPub, frontProxyCaPem },
    naming,
    access,
    log,
  );
  await security.synced;
  const crdInformer = access.informer({
    group: naming.group("apiextensions"),
    resource: "customresourcedefinitions",
  });
  // Extension API servers: every call-out to a Service shares the dispatchers.
  const dispatchers = new DispatcherPool();
  const crds = crdInformer
    ? startCrdRegistrar({
        naming,
        controlPlane,
        informer: crdInformer,
        callouts: {
          directory: serviceDirectory(access, naming),
          dispatchers,
          clusterIpRouting: !options.enableAggregatorRouting,
        },
        onError: (err, context) => log.warn({ err, context }, "custom resources"),
      })
    : undefined;
  await crds?.synced;
  const apiServiceInformer = access.informer({
    group: naming.group("apiregistration"),
    resource: "apiservices",
  });
  const remoteBackend = new RemoteBackend({
    directory: serviceDirectory(access, naming),
    dispatchers,
    client: {
      certPem: await readFile(options.proxyClientCertFile ?? pki.paths.frontProxyClientCert, "utf8"),
      keyPem: await readFile(options.proxyClientKeyFile ?? pki.paths.frontProxyClientKey, "utf8"),
    },
    clusterIpRouting: !options.enableAggregatorRouting,
    identityHeaders: {
      names: [...options.requestheaderUsernameHeaders, ...options.requestheaderGroupHeaders],
      prefixes: options.requestheaderExtraHeadersPrefix,
    },
  });
  // Made once the controllers' client exists; routing asks it from the start.
  let availability: ApiServiceAvailability | undefined;
  let remoteOpenApi: RemoteOpenApi | undefined;
  const aggregation = apiServiceInformer
    ? startAggregation({
        informer: apiServiceInformer,
        backend: remoteBackend,
        available: (name) => availability?.state(name),
        onChange: () => {
          availability?.recheck();
          remoteOpenApi?.recheck();
        },
      })
    : undefined;
  await aggregation?.synced;
  const { authorizer } = security;
  controlPlane.resources.addVirtual(tokenReviews(naming, security.tokens, security.apiAudiences));
  if (gates.APISelfSubjectReview !== false) controlPlane.resources.addVirtual(selfSubjectReviews(naming));
  for (const review of accessReviews({ naming, authorizer, rulesFor: mergedRules(authorizer.authorizers) })) {
    controlPlane.resources.addVirtual(review);
  }
  controlPlane.resources.addVirtual(legacyBindings(controlPlane.resources));

  const servedGroupVersions = controlPlane.resources.allSchemas.flatMap((schema) =>
    schema.versions
      .filter((v) => v.served)
      .map((v) => ({ group: schema.group, version: v.name, resources: [schema.plural] })),
  );
  controlPlane.resources.setEnabled(
    runtimeConfig(options.runtimeConfig, mergeGroupVersions(servedGroupVersions)),
  );

  let shuttingDown = false;
  let policyReconciled = false;
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
  let discoveryGeneration = "";
  const currentDiscovery = () => {
    const generation = `${controlPlane.resources.generation} ${availability?.generation ?? 0}`;
    if (discoveryGeneration !== generation) {
      discoveryGeneration = generation;
      discovery.update(controlPlane.resources.schemas, remoteGroupVersions(availability));
    }
    return discovery;
  };
  const auditor = createAuditor(auditOptions(options), naming, metrics.audit, (message) => log.warn(message));
  const admission = await startAdmission({
    naming,
    resources: controlPlane.resources,
    objects: access,
    authorizer,
    enable: options.enableAdmissionPlugins,
    disable: options.disableAdmissionPlugins,
    ...(options.admissionControlConfigFile ? { configFile: options.admissionControlConfigFile } : {}),
    options: {
      defaultNotReadyTolerationSeconds: options.defaultNotReadyTolerationSeconds,
      defaultUnreachableTolerationSeconds: options.defaultUnreachableTolerationSeconds,
      featureGates: gates,
      ...(options.redisUrl ? { redisUrl: options.redisUrl } : {}),
    },
    metrics: metrics.registry,
    signal: stopAccess.signal,
  });
  log.info({ plugins: admission.names }, "admission");
  const kubelet = await loadKubeletClient({
    certificateAuthority: options.kubeletCertificateAuthority,
    clientCertificate: options.kubeletClientCertificate,
    clientKey: options.kubeletClientKey,
  });
  const handlerEnv = (): HandlerEnv => ({
    metrics,
    resources: controlPlane.resources,
    naming,
    codec: new Codec(naming),
    watchListEnabled: gates.WatchList === true,
    admission,
    subresourceActions: new Map([
      [
        "/serviceaccounts/token",
        tokenRequestAction(naming, access, security, options.serviceAccountMaxTokenExpiration),
      ],
      ["/pods/binding", podBindingAction(controlPlane.resources)],
      ["/pods/eviction", podEvictionAction(controlPlane.resources)],
    ]),
    ...(security.rbac ? { checkWrite: rbacEscalationCheck(naming, security.rbac, authorizer) } : {}),
    authorizeVerb: verbAuthorizer(authorizer),
    proxy: { directory: serviceDirectory(access, naming), dispatchers, kubelet },
  });

  const app = createServer(tls, log);
  if (options.v >= REQUEST_LOG_LEVEL) registerRequestLog(app, log);
  const accessOptions = {
    authenticators: security.authenticators,
    anonymousAuth: options.anonymousAuth,
    authorizer,
    naming,
    ...(auditor ? { auditor } : {}),
  };
  const guard = accessGuard(accessOptions);
  registerVersion(app, guard);
  registerMetrics(app, guard, metrics);
  registerOpenApi(app, {
    naming,
    schemas: () => controlPlane.resources.schemas,
    guard,
    remote: () => remoteOpenApi?.specs(),
  });
  registerApi(
    app,
    defaultPipeline({
      ...accessOptions,
      env: handlerEnv(),
      discovery: discoveryResponder(naming, currentDiscovery),
      inflight: { readOnly: options.maxRequestsInflight, mutating: options.maxMutatingRequestsInflight },
      ...(aggregation ? { remote: aggregation.route } : {}),
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
          "rbac-bootstrap-roles",
          () => {
            if (!policyReconciled) throw new Error("the bootstrap RBAC policy is not in place yet");
          },
        ],
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
    { guard, livezGracePeriodMs: options.livezGracePeriod },
  );
  registerNotFound(app, guard);
  await app.listen({ host: options.bindAddress, port: options.securePort });

  // Controllers are API clients on loopback with identities of their own.
  const ca = await loadAuthority(
    await readFile(pki.paths.caCert, "utf8"),
    await readFile(pki.paths.caKey, "utf8"),
  );
  const loopbackHost = host === "0.0.0.0" ? "127.0.0.1" : host === "[::]" ? "[::1]" : host;
  // Upstream's user agent (`<program>/<version> (<os>/<arch>) <product>/<commit>[/<controller>]`):
  // writes are recorded under the program, kube-controller-manager or kube-apiserver.
  const build = versionInfo();
  const userAgent = (program: string, controller?: string) =>
    `${program}/${build.gitVersion} (${build.platform}) ${naming.productName}/${build.gitCommit.slice(0, 7) || "unknown"}${controller ? `/${controller}` : ""}`;
  // Every loopback client, closed at shutdown: their kept-alive connections would hold the
  // server's close open.
  const loopbackClients: ControllerClient[] = [];
  const loopbackClient = (credentials: ConstructorParameters<typeof ControllerClient>[0]) => {
    const client = new ControllerClient(credentials);
    loopbackClients.push(client);
    return client;
  };
  const controllerClient = async (name: string, program = "kube-controller-manager") => {
    const cert = await issueCertificate(ca, {
      commonName: `system:controller:${name}`,
      usage: "client",
      validDays: 30,
    });
    return loopbackClient({
      server: `https://${loopbackHost}:${options.securePort}`,
      caPem: ca.certPem,
      certPem: cert.certPem,
      keyPem: cert.keyPem,
      userAgent: userAgent(program, name),
    });
  };
  const stopControllers = new AbortController();
  const onControllerError = (err: unknown, context: string) => log.warn({ err, context }, "controller");

  // The bootstrap RBAC policy, written through the API as the loopback superuser; retried until
  // it lands (readyz waits for it).
  const masters = await issueCertificate(ca, {
    commonName: "system:apiserver",
    organizations: ["system:masters"],
    usage: "client",
    validDays: 30,
  });
  const mastersClient = loopbackClient({
    server: `https://${loopbackHost}:${options.securePort}`,
    caPem: ca.certPem,
    certPem: masters.certPem,
    keyPem: masters.keyPem,
    userAgent: userAgent("kube-apiserver"),
  });
  // Replicas over a shared store must share credentials (issue 23): refuse to start otherwise.
  if (options.storageBackend === "etcd" || options.storageBackend === "mongodb") {
    const fingerprints = await credentialFingerprints({
      clientCaPem,
      frontProxyCaPem,
      serviceAccountSigningKeyFile: options.serviceAccountSigningKeyFile ?? pki.paths.saKey,
      serviceAccountKeyFiles:
        options.serviceAccountKeyFiles.length > 0 ? options.serviceAccountKeyFiles : [pki.paths.saPub],
    });
    for (let attempt = 0; ; attempt++) {
      try {
        const outcome = await checkSharedCredentials(mastersClient, naming.systemNamespace, fingerprints);
        log.info({ outcome }, "shared credentials checked");
        break;
      } catch (err) {
        if (err instanceof SharedCredentialsError) throw err;
        if (attempt % 10 === 0) log.warn({ err }, "shared credentials not checked yet; retrying");
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  }
  const policyRun = (async () => {
    for (let attempt = 0; !stopControllers.signal.aborted; attempt++) {
      try {
        await reconcileBootstrapPolicy(mastersClient, naming);
        policyReconciled = true;
        return;
      } catch (err) {
        if (attempt % 10 === 0) log.warn({ err }, "bootstrap RBAC policy not reconciled yet; retrying");
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  })();

  // Upstream's kube-controller-manager controllers: one replica runs them at a time (leader
  // election), each term with new instances on a signal of its own. Their clients are made once.
  const clients = {
    namespace: await controllerClient("namespace-controller"),
    serviceAccount: await controllerClient("serviceaccount-controller"),
    rootCa: await controllerClient("root-ca-cert-publisher"),
    storageProtection: await controllerClient("pvc-protection-controller"),
    token: await controllerClient("token-controller"),
    aggregation: await controllerClient("clusterrole-aggregation-controller"),
    tokenCleaner: await controllerClient("token-cleaner"),
    bootstrapSigner: await controllerClient("bootstrap-signer"),
    certificates: await controllerClient("certificate-controller"),
    garbageCollector: await controllerClient("generic-garbage-collector"),
  };
  // A controller runs only while `--runtime-config` serves everything it works on.
  const serves = (...resources: [string, string, string][]) =>
    resources.every(([group, version, resource]) => controlPlane.resources.lookup(group, version, resource));
  type Controller = { readonly synced: boolean; run(signal: AbortSignal): Promise<void> };
  const electedControllers = (): { ready: Controller[]; other: Controller[] } => {
    const ready: Controller[] = [];
    if (serves(["", "v1", "namespaces"]))
      ready.push(new NamespaceController(clients.namespace, naming.productName, onControllerError));
    if (serves(["", "v1", "namespaces"], ["", "v1", "serviceaccounts"]))
      ready.push(new ServiceAccountController(clients.serviceAccount, onControllerError));
    if (serves(["", "v1", "secrets"], ["", "v1", "serviceaccounts"]))
      ready.push(
        new TokenController(
          clients.token,
          { naming, signer: security.signer, rootCaPem: ca.certPem },
          onControllerError,
        ),
      );
    if (serves(["", "v1", "namespaces"], ["", "v1", "configmaps"]))
      ready.push(
        new RootCaPublisher(
          clients.rootCa,
          { name: naming.rootCaConfigMap, caPem: ca.certPem },
          onControllerError,
        ),
      );
    if (serves(["", "v1", "pods"], ["", "v1", "persistentvolumeclaims"], ["", "v1", "persistentvolumes"]))
      ready.push(
        new StorageProtectionController(
          clients.storageProtection,
          { pvc: naming.label("pvc-protection"), pv: naming.label("pv-protection") },
          onControllerError,
        ),
      );
    if (serves([naming.group("rbac.authorization"), "v1", "clusterroles"]))
      ready.push(new ClusterRoleAggregationController(clients.aggregation, naming, onControllerError));
    // The `kubernetes` Service's endpoints name one address: upstream lists every live API server
    // through per-server leases; replicas each writing their own would rewrite it back and forth
    // without end, so the leader alone keeps it (its address and port).
    if (
      serves(
        ["", "v1", "services"],
        ["", "v1", "endpoints"],
        [naming.group("discovery"), "v1", "endpointslices"],
      )
    )
      ready.push(new KubernetesServiceController(mastersClient, kubernetesServiceOptions, onControllerError));
    // Upstream runs the cleaner and the signer only when asked; they go with bootstrap tokens here.
    if (options.enableBootstrapTokenAuth && serves(["", "v1", "secrets"])) {
      ready.push(new BootstrapTokenCleaner(clients.tokenCleaner, naming, onControllerError));
      if (serves(["", "v1", "configmaps"]))
        ready.push(new BootstrapSigner(clients.bootstrapSigner, naming, onControllerError));
    }
    // Upstream's csrapproving, csrsigning and csrcleaner, under one identity.
    if (serves([naming.group("certificates"), "v1", "certificatesigningrequests"]))
      ready.push(
        new CsrApprovingController(clients.certificates, naming, onControllerError),
        new CsrSigningController(
          clients.certificates,
          { naming, authorities: csrSigners, durationMs: options.clusterSigningDuration },
          onControllerError,
        ),
        new CsrCleaner(clients.certificates, naming, onControllerError),
      );
    // The garbage collector: not part of readiness (upstream's readyz does not wait for it either);
    // its workers wait for its own monitors.
    const other: Controller[] = [];
    if (options.enableGarbageCollector)
      other.push(
        new GarbageCollector(clients.garbageCollector, {
          ignored: (group, resource) =>
            resource === "events" && (group === "" || group === naming.group("events")),
          metrics: metrics.registry,
          log: (v, message, fields) =>
            v === 0
              ? log.info({ v, ...fields }, message)
              : v <= 2
                ? log.debug({ v, ...fields }, message)
                : log.trace({ v, ...fields }, message),
          onError: onControllerError,
        }),
      );
    return { ready, other };
  };

  // The API server's own loops, which upstream runs inside every kube-apiserver: every replica.
  // How extension servers authenticate callers, published as upstream's kube-apiserver does it:
  // with the server's own privileged loopback identity.
  const authenticationTrust = new AuthenticationTrustController(
    mastersClient,
    {
      namespace: naming.systemNamespace,
      trust: {
        clientCaPem,
        ...(options.requestheaderUsernameHeaders.length > 0
          ? {
              requestHeader: {
                caPem: frontProxyCaPem,
                allowedNames: options.requestheaderAllowedNames,
                usernameHeaders: options.requestheaderUsernameHeaders,
                groupHeaders: options.requestheaderGroupHeaders,
                extraHeaderPrefixes: options.requestheaderExtraHeadersPrefix,
              },
            }
          : {}),
      },
    },
    onControllerError,
  );
  const apiServiceRegistration = new ApiServiceRegistrationController(
    // Upstream's autoregister controller runs inside the API server.
    await controllerClient("apiservice-registration-controller", "kube-apiserver"),
    { naming, customResources: serves([naming.group("apiextensions"), "v1", "customresourcedefinitions"]) },
    onControllerError,
  );
  // The API server's own objects, written as upstream's with its privileged loopback identity.
  const bootstrapObjects = new BootstrapObjectsController(
    mastersClient,
    {
      naming,
      priorityClasses: serves([naming.group("scheduling"), "v1", "priorityclasses"]),
      flowControl: serves(
        [naming.group("flowcontrol"), "v1beta3", "flowschemas"],
        [naming.group("flowcontrol"), "v1beta3", "prioritylevelconfigurations"],
      ),
    },
    onControllerError,
  );
  const publicIp = advertiseAddress(options.bindAddress, options.advertiseAddress);
  if (publicIp === undefined)
    log.warn("no address to advertise (--advertise-address): the kubernetes Service gets no endpoints");
  const kubernetesServiceOptions = {
    naming,
    serviceIp: new ServiceAllocator({
      clusterIpRange: options.serviceClusterIpRange,
      nodePortRange: options.serviceNodePortRange,
    }).firstIp,
    publicIp,
    publicPort: options.securePort,
  };
  // Leader election, as upstream's controller manager: its identity and Lease.
  const electionName = "kube-controller-manager";
  const elector = options.leaderElect
    ? new LeaderElector({
        client: loopbackClient({
          server: `https://${loopbackHost}:${options.securePort}`,
          caPem: ca.certPem,
          ...(await issueCertificate(ca, {
            commonName: "system:kube-controller-manager",
            usage: "client",
            validDays: 30,
          })),
          userAgent: userAgent("kube-controller-manager", "leader-election"),
        }),
        group: naming.group("coordination"),
        namespace: naming.systemNamespace,
        name: electionName,
        leaseDurationMs: options.leaderElectLeaseDuration,
        renewDeadlineMs: options.leaderElectRenewDeadline,
        retryPeriodMs: options.leaderElectRetryPeriod,
        onLeading: (leading) => {
          metrics.leaderElection(electionName, leading);
          log.info(
            { identity: elector?.identity, lease: electionName },
            leading ? "leading" : "stopped leading",
          );
          // The new leader writes every APIService's status; the others only probe.
          if (leading) availability?.rewriteStatus();
        },
        onError: (err) => onControllerError(err, "leader election"),
      })
    : undefined;
  // A follower reports 0 from the start; without election there is no series, as upstream.
  if (elector) metrics.leaderElection(electionName, false);
  if (aggregation) {
    // Every replica probes for its own routing and discovery; only the leader writes the status.
    availability = new ApiServiceAvailability({
      table: aggregation.table,
      backend: remoteBackend,
      client: mastersClient,
      group: naming.group("apiregistration"),
      metrics,
      periodMs: options.apiServiceAvailabilityInterval,
      writesStatus: () => elector?.leading ?? true,
      onError: onControllerError,
    });
    // A Service or its endpoints changing may change an extension's availability.
    const recheck = () => availability?.recheck();
    access.informer({ group: "", resource: "services" })?.subscribe(recheck);
    access.informer({ group: naming.group("discovery"), resource: "endpointslices" })?.subscribe(recheck);
  }
  // Extensions' OpenAPI specs for /openapi/v2 and /openapi/v3, fetched as the availability probe is.
  if (aggregation)
    remoteOpenApi = new RemoteOpenApi({
      table: aggregation.table,
      backend: remoteBackend,
      user: AGGREGATOR,
      onError: onControllerError,
    });
  const running: Controller[] = [];
  if (serves(["", "v1", "configmaps"])) running.push(authenticationTrust);
  if (serves([naming.group("apiregistration"), "v1", "apiservices"])) running.push(apiServiceRegistration);
  running.push(bootstrapObjects);
  if (availability) running.push(availability);
  if (remoteOpenApi) running.push(remoteOpenApi);
  // cluster-info, as kubeadm's init writes it (admin.kubeconfig's server and the cluster CA).
  if (serves(["", "v1", "configmaps"]))
    running.push(
      new ClusterInfoPublisher(
        mastersClient,
        { namespace: naming.publicNamespace, server: serverUrl, caPem: ca.certPem },
        onControllerError,
      ),
    );
  controllers.push(...running);
  // Readiness waits once, after start, until this replica knows whether it leads and, when it
  // does, until that term's controllers have synced; later changes of leader leave it alone.
  let electedSettled = false;
  let term: Controller[] | undefined;
  // Runs not yet returned, by controller, for a shutdown that has to stop waiting for them.
  const pendingRuns = new Map<Controller, string>();
  const tracked = (c: Controller, signal: AbortSignal) => {
    pendingRuns.set(c, c.constructor.name);
    return c.run(signal).finally(() => pendingRuns.delete(c));
  };
  const runElected = async (signal: AbortSignal) => {
    const { ready, other } = electedControllers();
    term = ready;
    await Promise.all([...ready, ...other].map((c) => tracked(c, signal)));
  };
  controllers.push({
    get synced() {
      if (term?.every((c) => c.synced) || (elector?.decided && !elector.leading)) electedSettled = true;
      return electedSettled;
    },
  });
  // Controllers start once their roles exist, rather than logging 403s until then.
  const controllerRuns = [
    policyRun.then(() =>
      Promise.all([
        ...running.map((c) => tracked(c, stopControllers.signal)),
        elector ? elector.run(stopControllers.signal, runElected) : runElected(stopControllers.signal),
      ]),
    ),
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
    // A controller stuck in a call must not keep the process from exiting: the loopback clients
    // destroyed next end whatever it still waits for.
    const stopped = await Promise.race([
      Promise.allSettled(controllerRuns).then(() => true),
      delay(CONTROLLER_STOP_MS, false, { ref: false }),
    ]);
    if (!stopped)
      log.warn(
        { waitedMs: CONTROLLER_STOP_MS, controllers: [...new Set(pendingRuns.values())].sort() },
        "controllers did not stop in time; shutting down without them",
      );
    await Promise.allSettled(loopbackClients.map((c) => c.destroy()));
    closeAllWatches();
    const closing = app.close();
    closeIdleConnections(app);
    await closing;
    await security.close();
    await admission.close();
    crds?.stop();
    aggregation?.stop();
    await dispatchers.close();
    stopAccess.abort();
    await controlPlane.stop();
    await auditor?.backend.shutdown();
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

// `init`: shared credentials for replicas, written once before any of them starts.
if (process.argv[2] === "init") {
  try {
    const done = await runInit(process.argv.slice(3));
    for (const file of done.created) process.stdout.write(`generated ${file}\n`);
    process.stdout.write(
      `credentials in ${done.pkiDir}; start each replica with --pki-dir=${done.pkiDir}; admin kubeconfig: ${done.adminKubeconfig}\n`,
    );
    process.exit(0);
  } catch (err) {
    if (!(err instanceof OptionError)) throw err;
    process.stderr.write(`error: ${err.message}\n`);
    process.exit(2);
  }
}

/** How long shutdown waits for the controllers to return once told to stop. */
const CONTROLLER_STOP_MS = 10_000;

let options: ServerOptions;
try {
  options = loadOptions(process.argv.slice(2));
  const hiddenMetrics = showHiddenMetricsError(options.showHiddenMetricsForVersion);
  if (hiddenMetrics) throw new OptionError(hiddenMetrics);
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
  if (err instanceof AdmissionPluginError) {
    process.stderr.write(`error: admission: ${err.message}\n`);
    process.exit(2);
  }
  if (err instanceof EncryptionConfigError) {
    process.stderr.write(`error: ${err.message}\n`);
    process.exit(1);
  }
  if (err instanceof KubeletClientConfigError) {
    process.stderr.write(`error: ${err.message}\n`);
    process.exit(1);
  }
  if (
    err instanceof SigningAuthorityError ||
    err instanceof SharedCredentialsError ||
    err instanceof AuditConfigError ||
    err instanceof MongoStartError
  ) {
    process.stderr.write(`error: ${err.message}\n`);
    process.exit(1);
  }
  if (err instanceof FeatureGateError || err instanceof RuntimeConfigError) {
    const flag = err instanceof FeatureGateError ? "--feature-gates" : "--runtime-config";
    process.stderr.write(`error: ${flag}: ${err.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`fatal: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
