// The server's settings: one table of options, each reachable as a kube-apiserver-style flag
// (`--data-dir=./data` or `--data-dir ./data`) and as a key of the YAML file given with
// `--config`. Flags win over the file; the file wins over defaults.

import { readFileSync } from "node:fs";
import { isIP } from "node:net";
import { load as loadYaml } from "js-yaml";
import { parseCidr, parseNodePortRange, ServiceRangeError } from "../backends/builtin/index.ts";
import { defaultHistoryBytes } from "../backends/cacher/index.ts";
import { parseDuration } from "./duration.ts";

type Kind = "string" | "int" | "bool" | "duration" | "list" | "bytes";

interface OptionSpec<K extends Kind = Kind> {
  readonly flag: string;
  readonly key: string;
  readonly kind: K;
  readonly help: string;
  readonly choices?: readonly string[];
}

/** Every option the server understands, in the order `--help` shows them. */
export const OPTION_SPECS = [
  {
    flag: "config",
    key: "config",
    kind: "string",
    help: "YAML file holding any of these settings (flags win)",
  },
  {
    flag: "data-dir",
    key: "dataDir",
    kind: "string",
    help: "directory for the embedded store and generated credentials",
  },
  {
    flag: "pki-dir",
    key: "pkiDir",
    kind: "string",
    help: "where the CA, serving certificate, service-account keys and front-proxy CA are read from (generated when absent); replicas share one (default <data-dir>/pki)",
  },
  {
    flag: "storage-backend",
    key: "storageBackend",
    kind: "string",
    choices: ["embedded", "memory", "etcd", "mongodb"],
    help: "where objects are kept: embedded (lmdb files under <data-dir>/store), memory, etcd, or mongodb",
  },
  {
    flag: "storage-sync",
    key: "storageSync",
    kind: "bool",
    help: "embedded store: acknowledge writes only once on disk",
  },
  {
    flag: "etcd-servers",
    key: "etcdServers",
    kind: "list",
    help: "etcd client URLs, comma separated (etcd backend)",
  },
  {
    flag: "etcd-cafile",
    key: "etcdCAFile",
    kind: "string",
    help: "CA bundle that signs the etcd servers' certificates",
  },
  {
    flag: "etcd-certfile",
    key: "etcdCertFile",
    kind: "string",
    help: "client certificate presented to etcd",
  },
  { flag: "etcd-keyfile", key: "etcdKeyFile", kind: "string", help: "key of the etcd client certificate" },
  {
    flag: "etcd-prefix",
    key: "etcdPrefix",
    kind: "string",
    help: 'path under which objects are kept in etcd ("" for the top of the key space)',
  },
  {
    flag: "mongodb-uri",
    key: "mongodbUri",
    kind: "string",
    help: "MongoDB connection string of a replica set, credentials and TLS options included (mongodb backend)",
  },
  {
    flag: "mongodb-database",
    key: "mongodbDatabase",
    kind: "string",
    help: "database holding the mongodb backend's collections (default: the URI's, else gateway)",
  },
  {
    flag: "mongodb-prefix",
    key: "mongodbPrefix",
    kind: "string",
    help: "the mongodb backend's collections are <prefix>_objects, <prefix>_log and <prefix>_meta",
  },
  {
    flag: "encryption-provider-config",
    key: "encryptionProviderConfig",
    kind: "string",
    help: "EncryptionConfiguration file: how each resource is encrypted at rest",
  },
  {
    flag: "encryption-provider-config-automatic-reload",
    key: "encryptionProviderConfigAutomaticReload",
    kind: "bool",
    help: "apply changes to --encryption-provider-config without a restart",
  },
  {
    flag: "compaction-interval",
    key: "compactionInterval",
    kind: "duration",
    help: "history older than this is compacted away; watches and continue tokens older than it get 410 (0 disables)",
  },
  {
    flag: "watch-cache-history",
    key: "watchCacheHistory",
    kind: "int",
    help: "upper bound on changes each watch cache keeps for replay, whatever their age",
  },
  {
    flag: "watch-cache-history-bytes",
    key: "watchCacheHistoryBytes",
    kind: "bytes",
    help: "upper bound on the bytes of changes all watch caches keep together for replay (e.g. 512Mi); the largest history gives up its oldest changes first",
  },
  { flag: "bind-address", key: "bindAddress", kind: "string", help: "address to listen on" },
  { flag: "secure-port", key: "securePort", kind: "int", help: "port to listen on" },
  {
    flag: "advertise-address",
    key: "advertiseAddress",
    kind: "string",
    help: "IP address the kubernetes Service's endpoints point at; default: --bind-address, or the host's address when that is loopback or unspecified",
  },
  {
    flag: "tls-cert-file",
    key: "tlsCertFile",
    kind: "string",
    help: "serving certificate (PEM); replaces the generated <data-dir>/pki/apiserver.crt",
  },
  { flag: "tls-private-key-file", key: "tlsPrivateKeyFile", kind: "string", help: "key of --tls-cert-file" },
  {
    flag: "tls-sans",
    key: "tlsSans",
    kind: "list",
    help: "extra DNS names or IPs for the generated serving certificate",
  },
  {
    flag: "client-ca-file",
    key: "clientCAFile",
    kind: "string",
    help: "CA bundle for client certificates; replaces the generated <data-dir>/pki/ca.crt",
  },
  {
    flag: "audit-policy-file",
    key: "auditPolicyFile",
    kind: "string",
    help: "audit Policy (YAML); without it no audit events are recorded (config/audit-policy.yaml: every request at Metadata)",
  },
  {
    flag: "audit-log-path",
    key: "auditLogPath",
    kind: "string",
    help: "write audit events to this file (- for standard output)",
  },
  {
    flag: "audit-log-format",
    key: "auditLogFormat",
    kind: "string",
    choices: ["json", "legacy"],
    help: "audit log line format",
  },
  {
    flag: "audit-log-maxage",
    key: "auditLogMaxage",
    kind: "int",
    help: "days a rotated audit log is kept (0: no limit)",
  },
  {
    flag: "audit-log-maxbackup",
    key: "auditLogMaxbackup",
    kind: "int",
    help: "rotated audit logs kept (0: all)",
  },
  {
    flag: "audit-log-maxsize",
    key: "auditLogMaxsize",
    kind: "int",
    help: "megabytes before the audit log is rotated (0: 100)",
  },
  {
    flag: "audit-log-mode",
    key: "auditLogMode",
    kind: "string",
    choices: ["batch", "blocking", "blocking-strict"],
    help: "how log events are sent: batch (buffered, in the background), blocking (in the request; failures counted), blocking-strict (a failed RequestReceived event fails the request)",
  },
  {
    flag: "audit-log-batch-buffer-size",
    key: "auditLogBatchBufferSize",
    kind: "int",
    help: "batch mode: events buffered before new ones are dropped",
  },
  {
    flag: "audit-log-batch-max-size",
    key: "auditLogBatchMaxSize",
    kind: "int",
    help: "batch mode: most events in one batch",
  },
  {
    flag: "audit-log-batch-max-wait",
    key: "auditLogBatchMaxWait",
    kind: "duration",
    help: "batch mode: longest wait before a batch that is not full is sent",
  },
  {
    flag: "audit-log-batch-throttle-enable",
    key: "auditLogBatchThrottleEnable",
    kind: "bool",
    help: "batch mode: limit the rate of batches",
  },
  {
    flag: "audit-log-batch-throttle-qps",
    key: "auditLogBatchThrottleQps",
    kind: "string",
    help: "batch mode: batches per second when throttled",
  },
  {
    flag: "audit-log-batch-throttle-burst",
    key: "auditLogBatchThrottleBurst",
    kind: "int",
    help: "batch mode: batches sent at once when throttled",
  },
  {
    flag: "audit-log-compress",
    key: "auditLogCompress",
    kind: "bool",
    help: "gzip rotated audit logs",
  },
  {
    flag: "audit-log-truncate-enabled",
    key: "auditLogTruncateEnabled",
    kind: "bool",
    help: "log events over the max event size lose their request and response bodies (annotated truncated), then are dropped if still too big; batches over the max batch size are split",
  },
  {
    flag: "audit-log-truncate-max-batch-size",
    key: "auditLogTruncateMaxBatchSize",
    kind: "int",
    help: "bytes of events handed to the log backend at once when truncating (at least the max event size)",
  },
  {
    flag: "audit-log-truncate-max-event-size",
    key: "auditLogTruncateMaxEventSize",
    kind: "int",
    help: "bytes of one log event when truncating",
  },
  {
    flag: "audit-log-version",
    key: "auditLogVersion",
    kind: "string",
    help: "API version of the events sent (only audit.<domain>/v1)",
  },
  {
    flag: "audit-webhook-config-file",
    key: "auditWebhookConfigFile",
    kind: "string",
    help: "kubeconfig naming the peer that audit events are POSTed to (EventList bodies)",
  },
  {
    flag: "audit-webhook-initial-backoff",
    key: "auditWebhookInitialBackoff",
    kind: "duration",
    help: "wait before the first retry of a failed webhook request",
  },
  {
    flag: "audit-webhook-mode",
    key: "auditWebhookMode",
    kind: "string",
    choices: ["batch", "blocking", "blocking-strict"],
    help: "how webhook events are sent: batch (buffered, in the background), blocking (in the request; failures counted), blocking-strict (a failed RequestReceived event fails the request)",
  },
  {
    flag: "audit-webhook-batch-buffer-size",
    key: "auditWebhookBatchBufferSize",
    kind: "int",
    help: "batch mode: events buffered before new ones are dropped",
  },
  {
    flag: "audit-webhook-batch-max-size",
    key: "auditWebhookBatchMaxSize",
    kind: "int",
    help: "batch mode: most events in one batch",
  },
  {
    flag: "audit-webhook-batch-max-wait",
    key: "auditWebhookBatchMaxWait",
    kind: "duration",
    help: "batch mode: longest wait before a batch that is not full is sent",
  },
  {
    flag: "audit-webhook-batch-throttle-enable",
    key: "auditWebhookBatchThrottleEnable",
    kind: "bool",
    help: "batch mode: limit the rate of batches",
  },
  {
    flag: "audit-webhook-batch-throttle-qps",
    key: "auditWebhookBatchThrottleQps",
    kind: "string",
    help: "batch mode: batches per second when throttled",
  },
  {
    flag: "audit-webhook-batch-throttle-burst",
    key: "auditWebhookBatchThrottleBurst",
    kind: "int",
    help: "batch mode: batches sent at once when throttled",
  },
  {
    flag: "audit-webhook-truncate-enabled",
    key: "auditWebhookTruncateEnabled",
    kind: "bool",
    help: "webhook events over the max event size lose their request and response bodies (annotated truncated), then are dropped if still too big; batches over the max batch size are split",
  },
  {
    flag: "audit-webhook-truncate-max-batch-size",
    key: "auditWebhookTruncateMaxBatchSize",
    kind: "int",
    help: "bytes of events handed to the webhook backend at once when truncating (at least the max event size)",
  },
  {
    flag: "audit-webhook-truncate-max-event-size",
    key: "auditWebhookTruncateMaxEventSize",
    kind: "int",
    help: "bytes of one webhook event when truncating",
  },
  {
    flag: "audit-webhook-version",
    key: "auditWebhookVersion",
    kind: "string",
    help: "API version of the events sent (only audit.<domain>/v1)",
  },
  {
    flag: "v",
    key: "v",
    kind: "int",
    help: "log verbosity (also -v): 0 start-up and errors, 2 more detail, 3 one line per HTTP request, 4 and up debugging",
  },
  {
    flag: "logging-format",
    key: "loggingFormat",
    kind: "string",
    choices: ["text", "json"],
    help: "log line format: text (klog's header, then the message and key=value pairs) or json (one object per line)",
  },
  {
    flag: "show-hidden-metrics-for-version",
    key: "showHiddenMetricsForVersion",
    kind: "string",
    help: "the previous minor release (1.26) whose hidden metrics /metrics serves again; no other value is allowed",
  },
  {
    flag: "max-requests-inflight",
    key: "maxRequestsInflight",
    kind: "int",
    help: "most non-mutating requests served at once (watches excluded); more get 429 (0: no limit)",
  },
  {
    flag: "max-mutating-requests-inflight",
    key: "maxMutatingRequestsInflight",
    kind: "int",
    help: "most create/update/patch/delete requests served at once; more get 429 (0: no limit)",
  },
  {
    flag: "livez-grace-period",
    key: "livezGracePeriod",
    kind: "duration",
    help: "for this long after start, /livez reports failing checks as passing (start-up time)",
  },
  {
    flag: "shutdown-delay-duration",
    key: "shutdownDelayDuration",
    kind: "duration",
    help: "on SIGTERM, keep serving (with /readyz failing) this long before draining",
  },
  {
    flag: "leader-elect",
    key: "leaderElect",
    kind: "bool",
    help: "run the controllers only while this gateway holds the controller Lease (replicas over one store); false: always run them",
  },
  {
    flag: "leader-elect-lease-duration",
    key: "leaderElectLeaseDuration",
    kind: "duration",
    help: "how long other replicas wait after the leader's last renewal before taking the Lease",
  },
  {
    flag: "leader-elect-renew-deadline",
    key: "leaderElectRenewDeadline",
    kind: "duration",
    help: "the leader stops its controllers when it has not renewed the Lease for this long",
  },
  {
    flag: "leader-elect-retry-period",
    key: "leaderElectRetryPeriod",
    kind: "duration",
    help: "how often the Lease is renewed by the leader and tried by the others",
  },
  {
    flag: "api-naming",
    key: "apiNaming",
    kind: "string",
    choices: ["cluster", "kubernetes"],
    help: "spelling of group, label and namespace names: cluster (cluster.io) or kubernetes (k8s.io, kubernetes.io)",
  },
  {
    flag: "anonymous-auth",
    key: "anonymousAuth",
    kind: "bool",
    help: "let requests without credentials in as system:anonymous (always off when the only authorization mode is AlwaysAllow)",
  },
  {
    flag: "token-auth-file",
    key: "tokenAuthFile",
    kind: "string",
    help: 'CSV of static bearer tokens: token,user,uid[,"group1,group2"]',
  },
  {
    flag: "enable-garbage-collector",
    key: "enableGarbageCollector",
    kind: "bool",
    help: "run the garbage collector (default true); with false, run one elsewhere against this server",
  },
  {
    flag: "enable-bootstrap-token-auth",
    key: "enableBootstrapTokenAuth",
    kind: "bool",
    help: "accept bootstrap tokens kept as Secrets in the system namespace",
  },
  {
    flag: "service-account-key-file",
    key: "serviceAccountKeyFiles",
    kind: "list",
    help: "PEM files of public or private keys (RSA, ECDSA) that verify service-account tokens; repeatable (default <data-dir>/pki/sa.pub)",
  },
  {
    flag: "service-account-signing-key-file",
    key: "serviceAccountSigningKeyFile",
    kind: "string",
    help: "private key that signs service-account tokens (default <data-dir>/pki/sa.key)",
  },
  {
    flag: "service-account-issuer",
    key: "serviceAccountIssuers",
    kind: "list",
    help: "issuer (iss) of service-account tokens; the first signs, all are accepted; repeatable",
  },
  {
    flag: "api-audiences",
    key: "apiAudiences",
    kind: "list",
    help: "audiences of this server; tokens must be meant for one of them (default: the first issuer)",
  },
  {
    flag: "service-account-lookup",
    key: "serviceAccountLookup",
    kind: "bool",
    help: "reject service-account tokens whose account, secret or bound object no longer exists",
  },
  {
    flag: "service-account-max-token-expiration",
    key: "serviceAccountMaxTokenExpiration",
    kind: "duration",
    help: "longest lifetime a TokenRequest may ask for (0: no limit)",
  },
  {
    flag: "service-cluster-ip-range",
    key: "serviceClusterIpRange",
    kind: "string",
    help: "CIDR range Services take their cluster IPs from",
  },
  {
    flag: "cluster-signing-cert-file",
    key: "clusterSigningCertFile",
    kind: "string",
    help: "PEM CA certificate the built-in CertificateSigningRequest signers issue with (default <data-dir>/pki/ca.crt)",
  },
  {
    flag: "cluster-signing-key-file",
    key: "clusterSigningKeyFile",
    kind: "string",
    help: "PEM private key of --cluster-signing-cert-file (default <data-dir>/pki/ca.key)",
  },
  {
    flag: "cluster-signing-kubelet-serving-cert-file",
    key: "clusterSigningKubeletServingCertFile",
    kind: "string",
    help: "CA certificate of the kubelet serving signer; not with --cluster-signing-cert-file",
  },
  {
    flag: "cluster-signing-kubelet-serving-key-file",
    key: "clusterSigningKubeletServingKeyFile",
    kind: "string",
    help: "private key of --cluster-signing-kubelet-serving-cert-file",
  },
  {
    flag: "cluster-signing-kubelet-client-cert-file",
    key: "clusterSigningKubeletClientCertFile",
    kind: "string",
    help: "CA certificate of the kubelet client signer; not with --cluster-signing-cert-file",
  },
  {
    flag: "cluster-signing-kubelet-client-key-file",
    key: "clusterSigningKubeletClientKeyFile",
    kind: "string",
    help: "private key of --cluster-signing-kubelet-client-cert-file",
  },
  {
    flag: "cluster-signing-kube-apiserver-client-cert-file",
    key: "clusterSigningKubeApiserverClientCertFile",
    kind: "string",
    help: "CA certificate of the API server client signer; not with --cluster-signing-cert-file",
  },
  {
    flag: "cluster-signing-kube-apiserver-client-key-file",
    key: "clusterSigningKubeApiserverClientKeyFile",
    kind: "string",
    help: "private key of --cluster-signing-kube-apiserver-client-cert-file",
  },
  {
    flag: "cluster-signing-legacy-unknown-cert-file",
    key: "clusterSigningLegacyUnknownCertFile",
    kind: "string",
    help: "CA certificate of the legacy-unknown signer (accepted as upstream's; that signer never signs here); not with --cluster-signing-cert-file",
  },
  {
    flag: "cluster-signing-legacy-unknown-key-file",
    key: "clusterSigningLegacyUnknownKeyFile",
    kind: "string",
    help: "private key of --cluster-signing-legacy-unknown-cert-file",
  },
  {
    flag: "cluster-signing-duration",
    key: "clusterSigningDuration",
    kind: "duration",
    help: "longest lifetime of a certificate the built-in signers issue (a request's expirationSeconds may shorten it)",
  },
  {
    flag: "service-node-port-range",
    key: "serviceNodePortRange",
    kind: "string",
    help: "port range (first-last) Services of type NodePort and LoadBalancer take node ports from",
  },
  {
    flag: "service-allocation-repair-interval",
    key: "serviceAllocationRepairInterval",
    kind: "duration",
    help: "how often cluster IP and node port allocations are checked against the Services (a leak is freed after three checks)",
  },
  {
    flag: "oidc-issuer-url",
    key: "oidcIssuerUrl",
    kind: "string",
    help: "https URL of the OpenID Connect issuer",
  },
  {
    flag: "oidc-client-id",
    key: "oidcClientId",
    kind: "string",
    help: "client id every ID token must be issued for",
  },
  {
    flag: "oidc-username-claim",
    key: "oidcUsernameClaim",
    kind: "string",
    help: "claim that holds the user name",
  },
  {
    flag: "oidc-username-prefix",
    key: "oidcUsernamePrefix",
    kind: "string",
    help: "prefix for user names; - disables prefixing (default <issuer># unless the claim is email)",
  },
  {
    flag: "oidc-groups-claim",
    key: "oidcGroupsClaim",
    kind: "string",
    help: "claim holding an array of groups",
  },
  { flag: "oidc-groups-prefix", key: "oidcGroupsPrefix", kind: "string", help: "prefix for group names" },
  {
    flag: "oidc-required-claim",
    key: "oidcRequiredClaims",
    kind: "list",
    help: "key=value a token's claims must hold; repeatable",
  },
  {
    flag: "oidc-ca-file",
    key: "oidcCAFile",
    kind: "string",
    help: "CA bundle of the issuer (default: system roots)",
  },
  {
    flag: "oidc-signing-algs",
    key: "oidcSigningAlgs",
    kind: "list",
    help: "accepted JOSE signing algorithms",
  },
  {
    flag: "authentication-token-webhook-config-file",
    key: "authenticationTokenWebhookConfigFile",
    kind: "string",
    help: "kubeconfig-format file naming a TokenReview webhook",
  },
  {
    flag: "authentication-token-webhook-version",
    key: "authenticationTokenWebhookVersion",
    kind: "string",
    choices: ["v1beta1", "v1"],
    help: "TokenReview version sent to the webhook",
  },
  {
    flag: "authentication-token-webhook-cache-ttl",
    key: "authenticationTokenWebhookCacheTtl",
    kind: "duration",
    help: "how long webhook answers are cached",
  },
  {
    flag: "requestheader-client-ca-file",
    key: "requestheaderClientCAFile",
    kind: "string",
    help: "CA bundle for authenticating proxies' client certificates (default <data-dir>/pki/front-proxy-ca.crt)",
  },
  {
    flag: "requestheader-allowed-names",
    key: "requestheaderAllowedNames",
    kind: "list",
    help: "common names an authenticating proxy's certificate may have (empty: any)",
  },
  {
    flag: "requestheader-username-headers",
    key: "requestheaderUsernameHeaders",
    kind: "list",
    help: "headers carrying the user name, first non-empty wins",
  },
  {
    flag: "requestheader-group-headers",
    key: "requestheaderGroupHeaders",
    kind: "list",
    help: "headers whose values are groups",
  },
  {
    flag: "requestheader-extra-headers-prefix",
    key: "requestheaderExtraHeadersPrefix",
    kind: "list",
    help: "header prefixes carrying extra user attributes",
  },
  {
    flag: "proxy-client-cert-file",
    key: "proxyClientCertFile",
    kind: "string",
    help: "client certificate the gateway presents to extension API servers (default <data-dir>/pki/front-proxy-client.crt)",
  },
  {
    flag: "proxy-client-key-file",
    key: "proxyClientKeyFile",
    kind: "string",
    help: "key of --proxy-client-cert-file (default <data-dir>/pki/front-proxy-client.key)",
  },
  {
    flag: "apiservice-availability-interval",
    key: "apiServiceAvailabilityInterval",
    kind: "duration",
    help: "how often every remote APIService's extension server is checked again (it is also checked whenever the APIService, its Service or EndpointSlices change)",
  },
  {
    flag: "enable-aggregator-routing",
    key: "enableAggregatorRouting",
    kind: "bool",
    help: "call extension API servers at an endpoint address of their Service rather than its cluster IP (default true: no kube-proxy runs here)",
  },
  {
    flag: "kubelet-certificate-authority",
    key: "kubeletCertificateAuthority",
    kind: "string",
    help: "PEM CA bundle the kubelets' serving certificates are checked against (unset: not checked)",
  },
  {
    flag: "kubelet-client-certificate",
    key: "kubeletClientCertificate",
    kind: "string",
    help: "client certificate presented to kubelets (pod logs, exec, attach, port-forward, the Node proxy); with --kubelet-client-key",
  },
  {
    flag: "kubelet-client-key",
    key: "kubeletClientKey",
    kind: "string",
    help: "key of --kubelet-client-certificate",
  },
  {
    flag: "authorization-mode",
    key: "authorizationModes",
    kind: "list",
    choices: ["AlwaysAllow", "AlwaysDeny", "RBAC", "Node", "Webhook"],
    help: "authorizers asked in order; the first that allows or denies decides",
  },
  {
    flag: "authorization-webhook-config-file",
    key: "authorizationWebhookConfigFile",
    kind: "string",
    help: "kubeconfig-format file naming a SubjectAccessReview webhook (mode Webhook)",
  },
  {
    flag: "authorization-webhook-version",
    key: "authorizationWebhookVersion",
    kind: "string",
    choices: ["v1beta1", "v1"],
    help: "SubjectAccessReview version sent to the webhook",
  },
  {
    flag: "authorization-webhook-cache-authorized-ttl",
    key: "authorizationWebhookCacheAuthorizedTtl",
    kind: "duration",
    help: "how long an allow from the webhook is cached",
  },
  {
    flag: "authorization-webhook-cache-unauthorized-ttl",
    key: "authorizationWebhookCacheUnauthorizedTtl",
    kind: "duration",
    help: "how long a deny from the webhook is cached",
  },
  {
    flag: "runtime-config",
    key: "runtimeConfig",
    kind: "list",
    help: "group versions to serve or not, e.g. batch/v1=false, api/alpha=true, v1/secrets=false",
  },
  { flag: "feature-gates", key: "featureGates", kind: "list", help: "feature gates, e.g. WatchList=true" },
  {
    flag: "enable-admission-plugins",
    key: "enableAdmissionPlugins",
    kind: "list",
    help: "admission plugins to run besides the default-enabled ones (order does not matter)",
  },
  {
    flag: "disable-admission-plugins",
    key: "disableAdmissionPlugins",
    kind: "list",
    help: "admission plugins not to run, default-enabled ones included",
  },
  {
    flag: "admission-control-config-file",
    key: "admissionControlConfigFile",
    kind: "string",
    help: "AdmissionConfiguration file with the plugins' configurations (inline or by path)",
  },
  {
    flag: "default-not-ready-toleration-seconds",
    key: "defaultNotReadyTolerationSeconds",
    kind: "int",
    help: "DefaultTolerationSeconds: seconds pods tolerate a not-ready node",
  },
  {
    flag: "default-unreachable-toleration-seconds",
    key: "defaultUnreachableTolerationSeconds",
    kind: "int",
    help: "DefaultTolerationSeconds: seconds pods tolerate an unreachable node",
  },
  {
    flag: "redis-url",
    key: "redisUrl",
    kind: "string",
    help: "Redis for state shared by replicas (EventRateLimit buckets), e.g. redis://127.0.0.1:6379",
  },
  { flag: "help", key: "help", kind: "bool", help: "print this help and exit" },
] as const satisfies readonly OptionSpec[];

export interface ServerOptions {
  config: string | undefined;
  dataDir: string;
  /** Undefined: <dataDir>/pki. */
  pkiDir: string | undefined;
  storageBackend: "embedded" | "memory" | "etcd" | "mongodb";
  storageSync: boolean;
  etcdServers: string[];
  etcdCAFile: string | undefined;
  etcdCertFile: string | undefined;
  etcdKeyFile: string | undefined;
  etcdPrefix: string;
  mongodbUri: string | undefined;
  mongodbDatabase: string | undefined;
  mongodbPrefix: string;
  encryptionProviderConfig: string | undefined;
  encryptionProviderConfigAutomaticReload: boolean;
  /** Milliseconds. */
  compactionInterval: number;
  watchCacheHistory: number;
  /** Bytes. */
  watchCacheHistoryBytes: number;
  bindAddress: string;
  securePort: number;
  advertiseAddress: string | undefined;
  tlsCertFile: string | undefined;
  tlsPrivateKeyFile: string | undefined;
  tlsSans: string[];
  clientCAFile: string | undefined;
  auditPolicyFile: string | undefined;
  auditLogPath: string | undefined;
  /** Log verbosity (`-v`). */
  v: number;
  loggingFormat: string;
  showHiddenMetricsForVersion: string | undefined;
  auditLogFormat: string;
  auditLogMaxage: number;
  auditLogMaxbackup: number;
  auditLogMaxsize: number;
  auditLogMode: string;
  auditLogBatchBufferSize: number;
  auditLogBatchMaxSize: number;
  /** Milliseconds. */
  auditLogBatchMaxWait: number;
  auditLogBatchThrottleEnable: boolean;
  /** A decimal number (upstream's flag is a float). */
  auditLogBatchThrottleQps: string;
  auditLogBatchThrottleBurst: number;
  auditLogVersion: string | undefined;
  auditLogCompress: boolean;
  auditLogTruncateEnabled: boolean;
  /** Bytes. */
  auditLogTruncateMaxBatchSize: number;
  /** Bytes. */
  auditLogTruncateMaxEventSize: number;
  auditWebhookConfigFile: string | undefined;
  /** Milliseconds. */
  auditWebhookInitialBackoff: number;
  auditWebhookMode: string;
  auditWebhookBatchBufferSize: number;
  auditWebhookBatchMaxSize: number;
  /** Milliseconds. */
  auditWebhookBatchMaxWait: number;
  auditWebhookBatchThrottleEnable: boolean;
  /** A decimal number (upstream's flag is a float). */
  auditWebhookBatchThrottleQps: string;
  auditWebhookBatchThrottleBurst: number;
  auditWebhookVersion: string | undefined;
  auditWebhookTruncateEnabled: boolean;
  /** Bytes. */
  auditWebhookTruncateMaxBatchSize: number;
  /** Bytes. */
  auditWebhookTruncateMaxEventSize: number;
  maxRequestsInflight: number;
  maxMutatingRequestsInflight: number;
  /** Milliseconds. */
  livezGracePeriod: number;
  /** Milliseconds. */
  shutdownDelayDuration: number;
  leaderElect: boolean;
  /** Milliseconds. */
  leaderElectLeaseDuration: number;
  /** Milliseconds. */
  leaderElectRenewDeadline: number;
  /** Milliseconds. */
  leaderElectRetryPeriod: number;
  apiNaming: "cluster" | "kubernetes";
  anonymousAuth: boolean;
  tokenAuthFile: string | undefined;
  enableBootstrapTokenAuth: boolean;
  enableGarbageCollector: boolean;
  /** Empty: the generated <data-dir>/pki/sa.pub. */
  serviceAccountKeyFiles: string[];
  serviceAccountSigningKeyFile: string | undefined;
  /** Empty: the naming preset's default issuer. */
  serviceAccountIssuers: string[];
  apiAudiences: string[];
  serviceAccountLookup: boolean;
  /** Milliseconds; 0 means no limit. */
  serviceAccountMaxTokenExpiration: number;
  serviceClusterIpRange: string;
  serviceNodePortRange: string;
  /** Milliseconds between Service allocation repair passes. */
  serviceAllocationRepairInterval: number;
  oidcIssuerUrl: string | undefined;
  oidcClientId: string | undefined;
  oidcUsernameClaim: string;
  oidcUsernamePrefix: string | undefined;
  oidcGroupsClaim: string | undefined;
  clusterSigningCertFile: string | undefined;
  clusterSigningKeyFile: string | undefined;
  clusterSigningKubeletServingCertFile: string | undefined;
  clusterSigningKubeletServingKeyFile: string | undefined;
  clusterSigningKubeletClientCertFile: string | undefined;
  clusterSigningKubeletClientKeyFile: string | undefined;
  clusterSigningKubeApiserverClientCertFile: string | undefined;
  clusterSigningKubeApiserverClientKeyFile: string | undefined;
  clusterSigningLegacyUnknownCertFile: string | undefined;
  clusterSigningLegacyUnknownKeyFile: string | undefined;
  /** Milliseconds. */
  clusterSigningDuration: number;
  oidcGroupsPrefix: string | undefined;
  oidcRequiredClaims: string[];
  oidcCAFile: string | undefined;
  oidcSigningAlgs: string[];
  authenticationTokenWebhookConfigFile: string | undefined;
  authenticationTokenWebhookVersion: "v1beta1" | "v1";
  /** Milliseconds. */
  authenticationTokenWebhookCacheTtl: number;
  requestheaderClientCAFile: string | undefined;
  requestheaderAllowedNames: string[];
  requestheaderUsernameHeaders: string[];
  requestheaderGroupHeaders: string[];
  requestheaderExtraHeadersPrefix: string[];
  proxyClientCertFile: string | undefined;
  proxyClientKeyFile: string | undefined;
  enableAggregatorRouting: boolean;
  apiServiceAvailabilityInterval: number;
  kubeletCertificateAuthority: string | undefined;
  kubeletClientCertificate: string | undefined;
  kubeletClientKey: string | undefined;
  authorizationModes: ("AlwaysAllow" | "AlwaysDeny" | "RBAC" | "Node" | "Webhook")[];
  authorizationWebhookConfigFile: string | undefined;
  authorizationWebhookVersion: "v1beta1" | "v1";
  /** Milliseconds. */
  authorizationWebhookCacheAuthorizedTtl: number;
  /** Milliseconds. */
  authorizationWebhookCacheUnauthorizedTtl: number;
  runtimeConfig: string[];
  featureGates: Record<string, boolean>;
  enableAdmissionPlugins: string[];
  disableAdmissionPlugins: string[];
  admissionControlConfigFile: string | undefined;
  defaultNotReadyTolerationSeconds: number;
  defaultUnreachableTolerationSeconds: number;
  redisUrl: string | undefined;
  help: boolean;
}

export const DEFAULTS: ServerOptions = {
  config: undefined,
  dataDir: "./data",
  pkiDir: undefined,
  storageBackend: "embedded",
  storageSync: true,
  etcdServers: [],
  etcdCAFile: undefined,
  etcdCertFile: undefined,
  etcdKeyFile: undefined,
  etcdPrefix: "/registry",
  mongodbUri: undefined,
  mongodbDatabase: undefined,
  mongodbPrefix: "registry",
  encryptionProviderConfig: undefined,
  encryptionProviderConfigAutomaticReload: false,
  compactionInterval: 5 * 60_000,
  watchCacheHistory: 50_000,
  // A sixteenth of the JavaScript heap limit, which Node sizes from the machine's memory.
  watchCacheHistoryBytes: defaultHistoryBytes(),
  bindAddress: "127.0.0.1",
  securePort: 6443,
  advertiseAddress: undefined,
  tlsCertFile: undefined,
  tlsPrivateKeyFile: undefined,
  tlsSans: [],
  clientCAFile: undefined,
  auditPolicyFile: undefined,
  auditLogPath: undefined,
  v: 0,
  loggingFormat: "text",
  showHiddenMetricsForVersion: undefined,
  auditLogFormat: "json",
  auditLogMaxage: 0,
  auditLogMaxbackup: 0,
  auditLogMaxsize: 0,
  // Upstream's defaults: the log writes each event in the request, the webhook batches.
  auditLogMode: "blocking",
  auditLogBatchBufferSize: 10_000,
  auditLogBatchMaxSize: 1,
  auditLogBatchMaxWait: 0,
  auditLogBatchThrottleEnable: false,
  auditLogBatchThrottleQps: "0",
  auditLogBatchThrottleBurst: 0,
  auditLogVersion: undefined,
  auditLogCompress: false,
  // Upstream's truncate defaults: 10 MB batches, 100 KB events.
  auditLogTruncateEnabled: false,
  auditLogTruncateMaxBatchSize: 10 * 1024 * 1024,
  auditLogTruncateMaxEventSize: 100 * 1024,
  auditWebhookConfigFile: undefined,
  auditWebhookInitialBackoff: 10_000,
  auditWebhookMode: "batch",
  auditWebhookBatchBufferSize: 10_000,
  auditWebhookBatchMaxSize: 400,
  auditWebhookBatchMaxWait: 30_000,
  auditWebhookBatchThrottleEnable: true,
  auditWebhookBatchThrottleQps: "10",
  auditWebhookBatchThrottleBurst: 15,
  auditWebhookVersion: undefined,
  auditWebhookTruncateEnabled: false,
  auditWebhookTruncateMaxBatchSize: 10 * 1024 * 1024,
  auditWebhookTruncateMaxEventSize: 100 * 1024,
  maxRequestsInflight: 400,
  maxMutatingRequestsInflight: 200,
  livezGracePeriod: 0,
  shutdownDelayDuration: 0,
  // Upstream's controller-manager defaults.
  leaderElect: true,
  leaderElectLeaseDuration: 15_000,
  leaderElectRenewDeadline: 10_000,
  leaderElectRetryPeriod: 2_000,
  apiNaming: "cluster",
  anonymousAuth: true,
  tokenAuthFile: undefined,
  enableBootstrapTokenAuth: false,
  enableGarbageCollector: true,
  serviceAccountKeyFiles: [],
  serviceAccountSigningKeyFile: undefined,
  serviceAccountIssuers: [],
  apiAudiences: [],
  serviceAccountLookup: true,
  serviceAccountMaxTokenExpiration: 0,
  serviceClusterIpRange: "10.0.0.0/24",
  serviceNodePortRange: "30000-32767",
  serviceAllocationRepairInterval: 3 * 60_000,
  oidcIssuerUrl: undefined,
  oidcClientId: undefined,
  oidcUsernameClaim: "sub",
  oidcUsernamePrefix: undefined,
  oidcGroupsClaim: undefined,
  oidcGroupsPrefix: undefined,
  clusterSigningCertFile: undefined,
  clusterSigningKeyFile: undefined,
  clusterSigningKubeletServingCertFile: undefined,
  clusterSigningKubeletServingKeyFile: undefined,
  clusterSigningKubeletClientCertFile: undefined,
  clusterSigningKubeletClientKeyFile: undefined,
  clusterSigningKubeApiserverClientCertFile: undefined,
  clusterSigningKubeApiserverClientKeyFile: undefined,
  clusterSigningLegacyUnknownCertFile: undefined,
  clusterSigningLegacyUnknownKeyFile: undefined,
  clusterSigningDuration: 365 * 24 * 3_600_000,
  oidcRequiredClaims: [],
  oidcCAFile: undefined,
  oidcSigningAlgs: ["RS256"],
  authenticationTokenWebhookConfigFile: undefined,
  authenticationTokenWebhookVersion: "v1beta1",
  authenticationTokenWebhookCacheTtl: 2 * 60_000,
  requestheaderClientCAFile: undefined,
  requestheaderAllowedNames: ["front-proxy-client"],
  requestheaderUsernameHeaders: ["X-Remote-User"],
  requestheaderGroupHeaders: ["X-Remote-Group"],
  requestheaderExtraHeadersPrefix: ["X-Remote-Extra-"],
  proxyClientCertFile: undefined,
  proxyClientKeyFile: undefined,
  enableAggregatorRouting: true,
  apiServiceAvailabilityInterval: 30_000,
  kubeletCertificateAuthority: undefined,
  kubeletClientCertificate: undefined,
  kubeletClientKey: undefined,
  authorizationModes: ["Node", "RBAC"],
  authorizationWebhookConfigFile: undefined,
  authorizationWebhookVersion: "v1beta1",
  authorizationWebhookCacheAuthorizedTtl: 5 * 60_000,
  authorizationWebhookCacheUnauthorizedTtl: 30_000,
  runtimeConfig: [],
  featureGates: {},
  enableAdmissionPlugins: [],
  disableAdmissionPlugins: [],
  admissionControlConfigFile: undefined,
  defaultNotReadyTolerationSeconds: 300,
  defaultUnreachableTolerationSeconds: 300,
  redisUrl: undefined,
  help: false,
};

/** A setting that cannot be used; the process prints it and exits with status 2. */
export class OptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OptionError";
  }
}

/** Flag aliases kept for kube-apiserver users. */
const ALIASES: Record<string, string> = { "etcd-compaction-interval": "compaction-interval" };

const byFlag = new Map<string, OptionSpec>(OPTION_SPECS.map((s) => [s.flag, s]));
const byKey = new Map<string, OptionSpec>(OPTION_SPECS.map((s) => [s.key, s]));

function convert(spec: OptionSpec, raw: unknown, where: string): unknown {
  const bad = (why: string) => new OptionError(`${where}: ${why}`);
  switch (spec.kind) {
    case "string": {
      if (typeof raw !== "string" && typeof raw !== "number") throw bad("expected a string");
      const value = String(raw);
      if (spec.choices && !spec.choices.includes(value)) {
        throw bad(`"${value}" is not one of ${spec.choices.join(", ")}`);
      }
      return value;
    }
    case "int": {
      const value =
        typeof raw === "number" ? raw : typeof raw === "string" && /^-?\d+$/.test(raw) ? Number(raw) : NaN;
      if (!Number.isSafeInteger(value)) throw bad(`"${String(raw)}" is not an integer`);
      return value;
    }
    case "bool":
      if (raw === true || raw === "true" || raw === "1") return true;
      if (raw === false || raw === "false" || raw === "0") return false;
      throw bad(`"${String(raw)}" is not true or false`);
    case "duration":
      if (typeof raw === "number") return raw * 1000;
      if (typeof raw !== "string") throw bad("expected a duration such as 5m or 30s");
      try {
        return parseDuration(raw);
      } catch (err) {
        throw bad((err as Error).message);
      }
    case "bytes": {
      const m = /^(\d+)(Ki|Mi|Gi|Ti)?$/.exec(String(raw).trim());
      const value = m ? Number(m[1]) * 1024 ** ["", "Ki", "Mi", "Gi", "Ti"].indexOf(m[2] ?? "") : NaN;
      if (!Number.isSafeInteger(value) || value <= 0) {
        throw bad(`"${String(raw)}" is not a positive size such as 536870912, 512Mi or 2Gi`);
      }
      return value;
    }
    case "list": {
      const items = Array.isArray(raw)
        ? raw.map(String)
        : typeof raw === "string"
          ? raw.split(",")
          : undefined;
      if (!items) throw bad("expected a list");
      const list = items.map((s) => s.trim()).filter((s) => s !== "");
      if (spec.key === "featureGates") return parseGates(list, bad);
      const unknown = spec.choices && list.find((item) => !spec.choices?.includes(item));
      if (unknown) throw bad(`"${unknown}" is not one of ${spec.choices?.join(", ")}`);
      return list;
    }
  }
}

function parseGates(items: string[], bad: (why: string) => OptionError): Record<string, boolean> {
  const gates: Record<string, boolean> = {};
  for (const item of items) {
    const m = /^([A-Za-z0-9]+)=(true|false)$/.exec(item);
    if (!m) throw bad(`"${item}" is not Name=true|false`);
    gates[m[1] as string] = m[2] === "true";
  }
  return gates;
}

/** Parse command-line flags into the options they set (nothing else). */
export function parseFlags(argv: readonly string[]): Partial<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const m = /^--?([a-z0-9-]+)(?:=(.*))?$/s.exec(arg);
    if (!m) throw new OptionError(`unexpected argument "${arg}"`);
    const name = ALIASES[m[1] as string] ?? (m[1] as string);
    const spec = byFlag.get(name);
    if (!spec) throw new OptionError(`unknown flag: --${m[1]}`);
    let raw: string | undefined = m[2];
    if (raw === undefined) {
      if (spec.kind === "bool") raw = "true";
      else {
        raw = argv[++i];
        if (raw === undefined) throw new OptionError(`flag needs an argument: --${name}`);
      }
    }
    const value = convert(spec, raw, `--${name}`);
    // Repeated list flags accumulate, as kube-apiserver's do.
    if (spec.kind === "list" && out[spec.key] !== undefined) {
      out[spec.key] = Array.isArray(value)
        ? [...(out[spec.key] as string[]), ...value]
        : { ...(out[spec.key] as object), ...(value as object) };
    } else {
      out[spec.key] = value;
    }
  }
  return out;
}

/** Parse a YAML settings document; keys are the camelCase names of the flags. */
export function parseConfigFile(text: string, file: string): Partial<Record<string, unknown>> {
  let doc: unknown;
  try {
    doc = loadYaml(text);
  } catch (err) {
    throw new OptionError(`${file}: not valid YAML: ${(err as Error).message}`);
  }
  if (doc === undefined || doc === null) return {};
  if (typeof doc !== "object" || Array.isArray(doc))
    throw new OptionError(`${file}: expected a mapping of settings`);
  const out: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(doc)) {
    const spec = byKey.get(key);
    if (!spec || spec.key === "config" || spec.key === "help")
      throw new OptionError(`${file}: unknown setting "${key}"`);
    out[key] = convert(spec, raw, `${file}: ${key}`);
  }
  return out;
}

/** Defaults, then the YAML file named by `--config`, then the flags. */
export function loadOptions(
  argv: readonly string[],
  readFile = (p: string) => readFileSync(p, "utf8"),
): ServerOptions {
  const flags = parseFlags(argv);
  let file: Partial<Record<string, unknown>> = {};
  if (typeof flags.config === "string") {
    let text: string;
    try {
      text = readFile(flags.config);
    } catch (err) {
      throw new OptionError(`--config: cannot read ${flags.config}: ${(err as Error).message}`);
    }
    file = parseConfigFile(text, flags.config);
  }
  const options = { ...DEFAULTS, ...file, ...flags } as ServerOptions;
  if (options.storageBackend === "etcd" && options.etcdServers.length === 0) {
    throw new OptionError("--storage-backend=etcd needs --etcd-servers");
  }
  if (options.storageBackend === "mongodb" && !options.mongodbUri) {
    throw new OptionError("--storage-backend=mongodb needs --mongodb-uri");
  }
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/.test(options.mongodbPrefix)) {
    throw new OptionError(
      `--mongodb-prefix must be 1 to 64 letters, digits, "_" or "-", starting with a letter or digit: ${options.mongodbPrefix}`,
    );
  }
  if (options.etcdPrefix !== "" && !options.etcdPrefix.startsWith("/")) {
    throw new OptionError(`--etcd-prefix must be empty or start with "/": ${options.etcdPrefix}`);
  }
  if (!options.tlsCertFile !== !options.tlsPrivateKeyFile) {
    throw new OptionError("--tls-cert-file and --tls-private-key-file go together");
  }
  if (options.securePort < 0 || options.securePort > 65535)
    throw new OptionError("--secure-port: out of range");
  // klog's level is an unsigned 32-bit integer: a negative level is refused, not read as 0.
  if (options.v < 0 || options.v > 0xffffffff)
    throw new OptionError(
      `-v/--v: ${options.v} is not a log verbosity level (an integer from 0; 3 and up log each request)`,
    );
  if (options.advertiseAddress !== undefined && isIP(options.advertiseAddress) === 0)
    throw new OptionError(`--advertise-address: not an IP address: ${options.advertiseAddress}`);
  checkAuthOptions(options, { ...file, ...flags });
  checkLeaderElection(options);
  try {
    parseCidr(options.serviceClusterIpRange);
    parseNodePortRange(options.serviceNodePortRange);
    // As upstream's controller manager: one CA for every signer, or per-signer files, not both.
    const signing = [
      ["", options.clusterSigningCertFile, options.clusterSigningKeyFile],
      [
        "kubelet-serving-",
        options.clusterSigningKubeletServingCertFile,
        options.clusterSigningKubeletServingKeyFile,
      ],
      [
        "kubelet-client-",
        options.clusterSigningKubeletClientCertFile,
        options.clusterSigningKubeletClientKeyFile,
      ],
      [
        "kube-apiserver-client-",
        options.clusterSigningKubeApiserverClientCertFile,
        options.clusterSigningKubeApiserverClientKeyFile,
      ],
      [
        "legacy-unknown-",
        options.clusterSigningLegacyUnknownCertFile,
        options.clusterSigningLegacyUnknownKeyFile,
      ],
    ] as const;
    for (const [infix, cert, key] of signing) {
      if (!cert !== !key)
        throw new OptionError(
          `--cluster-signing-${infix}cert-file and --cluster-signing-${infix}key-file go together`,
        );
    }
    if (options.clusterSigningCertFile && signing.slice(1).some(([, cert]) => cert))
      throw new OptionError(
        "cannot specify --cluster-signing-{cert,key}-file and other --cluster-signing-*-file flags at the same time",
      );
    if (options.clusterSigningDuration <= 0)
      throw new OptionError("--cluster-signing-duration must be positive");
  } catch (err) {
    if (err instanceof ServiceRangeError) throw new OptionError(`--service-*-range: ${err.message}`);
    throw err;
  }
  return options;
}

/** Upstream's elector refuses these too: the leader must stop before another may take over. */
function checkLeaderElection(options: ServerOptions): void {
  const {
    leaderElectLeaseDuration: lease,
    leaderElectRenewDeadline: renew,
    leaderElectRetryPeriod: retry,
  } = options;
  if (lease <= 0 || renew <= 0 || retry <= 0)
    throw new OptionError(
      "--leader-elect-lease-duration, -renew-deadline and -retry-period must be positive",
    );
  if (lease <= renew)
    throw new OptionError("--leader-elect-lease-duration must be greater than --leader-elect-renew-deadline");
  // client-go's JitterFactor: a retry may come up to 1.2 periods late.
  if (renew <= 1.2 * retry)
    throw new OptionError(
      "--leader-elect-renew-deadline must be greater than 1.2 × --leader-elect-retry-period",
    );
}

/** Cross-checks of the authentication and authorization settings (`given`: what was set). */
function checkAuthOptions(options: ServerOptions, given: Partial<Record<string, unknown>>): void {
  if (options.authorizationModes.length === 0)
    throw new OptionError("--authorization-mode: at least one mode");
  const dup = options.authorizationModes.find((m, i) => options.authorizationModes.indexOf(m) !== i);
  if (dup) throw new OptionError(`--authorization-mode: "${dup}" appears twice`);
  if (
    options.authorizationModes.includes("Webhook") !==
    (options.authorizationWebhookConfigFile !== undefined)
  ) {
    throw new OptionError("--authorization-mode=Webhook and --authorization-webhook-config-file go together");
  }
  // As upstream: AlwaysAllow alone would let anonymous callers do anything.
  if (options.authorizationModes.length === 1 && options.authorizationModes[0] === "AlwaysAllow") {
    options.anonymousAuth = false;
  }
  if ((options.oidcIssuerUrl === undefined) !== (options.oidcClientId === undefined)) {
    throw new OptionError("--oidc-issuer-url and --oidc-client-id go together");
  }
  if (options.oidcIssuerUrl !== undefined && !options.oidcIssuerUrl.startsWith("https://")) {
    throw new OptionError("--oidc-issuer-url: must be an https:// URL");
  }
  for (const claim of options.oidcRequiredClaims) {
    if (!/^[^=]+=/.test(claim)) throw new OptionError(`--oidc-required-claim: "${claim}" is not key=value`);
  }
  if (given.requestheaderUsernameHeaders !== undefined && options.requestheaderUsernameHeaders.length === 0) {
    throw new OptionError("--requestheader-username-headers: at least one header");
  }
}

export function usage(): string {
  const lines = ["Usage: npm start -- [flags]", "", "Flags:"];
  for (const spec of OPTION_SPECS) {
    const def = DEFAULTS[spec.key as keyof ServerOptions];
    const shown =
      spec.kind === "duration"
        ? `${(def as number) / 1000}s`
        : spec.kind === "bytes"
          ? `${Math.round((def as number) / 2 ** 20)}Mi`
          : Array.isArray(def)
            ? def.join(",")
            : String(def ?? "");
    lines.push(`  --${spec.flag}${spec.kind === "bool" ? "" : "=<value>"}`);
    lines.push(
      `      ${spec.help}${shown && shown !== "false" && shown !== "[object Object]" ? ` (default ${shown})` : ""}`,
    );
  }
  return lines.join("\n");
}
