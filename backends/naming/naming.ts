// The naming preset (DESIGN.md, "Naming presets"): the only module that spells the product's
// domain. `cluster` is the specification's spelling and the default; `kubernetes` swaps in
// upstream's so clients with hard-coded group names work unchanged.

export type NamingPreset = "cluster" | "kubernetes";

export interface Naming {
  readonly preset: NamingPreset;
  /** Suffix of the product's API groups: `cluster.io` or `k8s.io`. */
  readonly groupSuffix: string;
  /** Domain of labels, annotations, finalizers and secret types: `cluster.io` or `kubernetes.io`. */
  readonly labelDomain: string;
  /** The namespace for the system's own objects (`cluster-system` / `kube-system`). */
  readonly systemNamespace: string;
  readonly publicNamespace: string;
  readonly nodeLeaseNamespace: string;
  /** The ConfigMap in every namespace holding the API server's CA (`cluster-root-ca.crt`). */
  readonly rootCaConfigMap: string;
  /** The Protobuf media type (`application/vnd.cluster.protobuf`). */
  readonly protobufMediaType: string;
  /** The product's name where it appears in identifiers (`cluster` / `kubernetes`). */
  readonly productName: string;
  /** A product group: `group("rbac.authorization")` is `rbac.authorization.cluster.io`. */
  group(prefix: string): string;
  /** A product label or annotation key: `label("metadata.name")`, `label("deprecated", "")`. */
  label(name: string, subdomain?: string): string;
  /** The label keys this server reads from the objects clients write. */
  readonly readLabels: readonly string[];
  /** The annotation keys this server reads from the objects clients write. */
  readonly readAnnotations: readonly string[];
  /** The Secret types this server gives a meaning (besides `Opaque`, the same in both). */
  readonly secretTypes: readonly string[];
  /** The namespaces this server keeps for itself: system, public, node lease. */
  readonly reservedNamespaces: readonly string[];
  /** What every encrypted stored value starts with (`k8s:enc:` upstream; `cluster:enc:`). */
  readonly encryptedValuePrefix: string;
}

/** A label or annotation key as `label(name, subdomain)` spells it. */
type Key = readonly [name: string, subdomain?: string];

// What the server reads, listed once so that the other preset's spelling of each can be told
// apart from an unknown key (gateway/naming-warnings.ts). Same order in both presets.
const READ_LABELS: readonly Key[] = [
  ...["enforce", "enforce-version", "audit", "audit-version", "warn", "warn-version"].map(
    (name) => [name, "pod-security"] as const,
  ),
  ["controller-uid", "batch"],
  ["job-name", "batch"],
  ["service-name"],
  ["automanaged", "kube-aggregator"],
  ["role"],
];
const READ_ANNOTATIONS: readonly Key[] = [
  ["is-default-class", "storageclass"],
  ["is-default-class", "storageclass.beta"],
  ["storage-class", "volume.beta"],
  ["is-default-class", "ingressclass"],
  ["ingress.class"],
  ["load-balancer-source-ranges", "service.beta"],
  ["node-selector", "scheduler.alpha"],
  ["defaultTolerations", "scheduler.alpha"],
  ["tolerationsWhitelist", "scheduler.alpha"],
  ["config.mirror"],
  ["enforce-mountable-secrets"],
  ["service-account.name"],
  ["service-account.uid"],
  ["autoupdate", "rbac.authorization"],
  ["metrics", "autoscaling.alpha"],
  ["current-metrics", "autoscaling.alpha"],
  ["behavior", "autoscaling.alpha"],
  ["conditions", "autoscaling.alpha"],
  ["pod", "seccomp.security.alpha"],
  ["autoupdate-spec", "apf"],
];
const SECRET_TYPES: readonly Key[] = [
  ["service-account-token"],
  ["dockercfg"],
  ["dockerconfigjson"],
  ["basic-auth"],
  ["ssh-auth"],
  ["tls"],
  ["token", "bootstrap"],
];

/**
 * Names clients hard-code, spelled as they spell them whatever the preset: the server must
 * recognise these as written, never translate them.
 */
export const clientNames = {
  /** kubectl's client-side apply annotation (kubectl writes this key under both presets). */
  lastAppliedConfiguration: "kubectl.kubernetes.io/last-applied-configuration",
  /**
   * The WebSocket subprotocol prefix browsers carry a bearer token in (followed by the token in
   * unpadded base64url).
   */
  webSocketBearerProtocolPrefix: "base64url.bearer.authorization.k8s.io.",
} as const;

/**
 * Client features that send upstream's group names, so they need `--api-naming=kubernetes`
 * (README's naming section; the start-up log says it under the cluster preset).
 */
export const upstreamNamedClientFeatures: readonly string[] = [
  "kubectl create role|rolebinding|clusterrole|clusterrolebinding|priorityclass|ingress",
  "kubectl create token",
  "kubectl auth can-i|whoami|reconcile",
  "kubectl apply --prune without --prune-allowlist",
  "the typed APIs of client libraries for *.k8s.io groups (python-kubernetes' RbacAuthorizationV1Api, ...)",
];

function make(preset: NamingPreset): Naming {
  const groupSuffix = preset === "cluster" ? "cluster.io" : "k8s.io";
  const labelDomain = preset === "cluster" ? "cluster.io" : "kubernetes.io";
  const short = preset === "cluster" ? "cluster" : "kube";
  const productName = preset === "cluster" ? "cluster" : "kubernetes";
  const label = (name: string, subdomain?: string) =>
    `${subdomain ? `${subdomain}.` : ""}${labelDomain}/${name}`;
  return {
    preset,
    groupSuffix,
    labelDomain,
    systemNamespace: `${short}-system`,
    publicNamespace: `${short}-public`,
    nodeLeaseNamespace: `${short}-node-lease`,
    rootCaConfigMap: `${short}-root-ca.crt`,
    protobufMediaType: `application/vnd.${productName}.protobuf`,
    productName,
    // Upstream files flow control under its API server's subdomain.
    group: (prefix) =>
      preset === "kubernetes" && prefix === "flowcontrol"
        ? `flowcontrol.apiserver.${groupSuffix}`
        : `${prefix}.${groupSuffix}`,
    label,
    readLabels: READ_LABELS.map(([name, sub]) => label(name, sub)),
    // A CRD in a protected group records its API review under the bare domain.
    readAnnotations: [
      ...READ_ANNOTATIONS.map(([name, sub]) => label(name, sub)),
      `api-approved.${labelDomain}`,
    ],
    secretTypes: SECRET_TYPES.map(([name, sub]) => label(name, sub)),
    reservedNamespaces: [`${short}-system`, `${short}-public`, `${short}-node-lease`],
    encryptedValuePrefix: preset === "cluster" ? "cluster:enc:" : "k8s:enc:",
  };
}

const presets: Record<NamingPreset, Naming> = { cluster: make("cluster"), kubernetes: make("kubernetes") };

export function naming(preset: NamingPreset = "cluster"): Naming {
  return presets[preset];
}

/** The preset this server does not use (whose spellings it can recognise and warn about). */
export function otherNaming(n: Naming): Naming {
  return presets[n.preset === "cluster" ? "kubernetes" : "cluster"];
}
