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
}

function make(preset: NamingPreset): Naming {
  const groupSuffix = preset === "cluster" ? "cluster.io" : "k8s.io";
  const labelDomain = preset === "cluster" ? "cluster.io" : "kubernetes.io";
  const short = preset === "cluster" ? "cluster" : "kube";
  const productName = preset === "cluster" ? "cluster" : "kubernetes";
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
    label: (name, subdomain) => `${subdomain ? `${subdomain}.` : ""}${labelDomain}/${name}`,
  };
}

const presets: Record<NamingPreset, Naming> = { cluster: make("cluster"), kubernetes: make("kubernetes") };

export function naming(preset: NamingPreset = "cluster"): Naming {
  return presets[preset];
}
