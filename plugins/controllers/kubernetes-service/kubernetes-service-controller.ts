// The `kubernetes` Service in `default` and its Endpoints and EndpointSlice, through which pods
// reach the API (in-cluster clients find it by name): upstream's kubernetesservice controller and
// endpoint reconciler, run by the API server itself.
//
// The Service is created when missing (cluster IP: the first address of the service range; port
// 443 `https` to the secure port) and otherwise left alone, as upstream leaves it after the first
// run. The endpoints are reconciled on every change and every 10 s. Upstream's default reconciler
// keeps one lease per API server in storage and lists every live one; a single gateway is the
// whole list, so this keeps the simple form (upstream's master-count reconciler with a count of
// one): exactly this gateway's advertised address and secure port. Without a usable address (no
// host address to advertise) only the Service is kept.
import type { Naming } from "../../../backends/naming/index.ts";
import type { ControllerClient } from "../client.ts";
import { Informer } from "../informer.ts";
import { ReconcileLoop } from "../reconcile-loop.ts";
import { sameJson } from "../same-json.ts";
import { isUnusableEndpointIp } from "./advertise-address.ts";

/** The Service's name: in-cluster clients find the API by it (the environment kubelets set). */
export const KUBERNETES_SERVICE = "kubernetes";
const NAMESPACE = "default";
const PORT_NAME = "https";
/** Upstream's EndpointInterval. */
const INTERVAL_MS = 10_000;

export interface KubernetesServiceOptions {
  readonly naming: Naming;
  /** The first address of `--service-cluster-ip-range`. */
  readonly serviceIp: string;
  /** The address endpoints point at (the advertise address); undefined: no endpoints. */
  readonly publicIp: string | undefined;
  /** The secure port. */
  readonly publicPort: number;
  readonly intervalMs?: number;
}

type Json = Record<string, unknown>;

/** The Endpoints' `subsets` and labels for one address. */
export function desiredEndpoints(
  naming: Naming,
  ip: string,
  port: number,
): { subsets: Json[]; labels: Json } {
  return {
    // The mirroring controller must not make a second slice of it.
    labels: { [naming.label("skip-mirror", "endpointslice")]: "true" },
    subsets: [{ addresses: [{ ip }], ports: [{ name: PORT_NAME, port, protocol: "TCP" }] }],
  };
}

/** The EndpointSlice's fields for one address, as upstream's endpoints adapter writes them. */
export function desiredEndpointSlice(
  naming: Naming,
  ip: string,
  port: number,
): { labels: Json; addressType: string; endpoints: Json[]; ports: Json[] } {
  return {
    labels: { [naming.label("service-name")]: KUBERNETES_SERVICE },
    addressType: ip.includes(":") ? "IPv6" : "IPv4",
    endpoints: [{ addresses: [ip], conditions: { ready: true } }],
    ports: [{ name: PORT_NAME, port, protocol: "TCP" }],
  };
}

export class KubernetesServiceController {
  readonly #client: ControllerClient;
  readonly #options: KubernetesServiceOptions;
  readonly #onError: (err: unknown, context: string) => void;
  readonly #informers: Informer[];
  readonly #loop: ReconcileLoop;

  constructor(
    client: ControllerClient,
    options: KubernetesServiceOptions,
    onError: (err: unknown, context: string) => void,
  ) {
    this.#client = client;
    this.#options = options;
    this.#onError = onError;
    this.#loop = new ReconcileLoop(() => this.#pass(), options.intervalMs ?? INTERVAL_MS);
    const byName = `?fieldSelector=${encodeURIComponent(`metadata.name=${KUBERNETES_SERVICE}`)}`;
    const kick = { upsert: () => this.#loop.kick(), deleted: () => this.#loop.kick() };
    const paths = [
      `/api/v1/namespaces/${NAMESPACE}/services${byName}`,
      `/api/v1/namespaces/${NAMESPACE}/endpoints${byName}`,
      `/apis/${options.naming.group("discovery")}/v1/namespaces/${NAMESPACE}/endpointslices${byName}`,
    ];
    this.#informers = paths.map(
      (path) => new Informer(client, path, kick, (err) => onError(err, "kubernetes service informer")),
    );
  }

  /**
   * Synced once a first pass has run: normally the Service and endpoints are then in place, but
   * readiness never waits on them (a Service already holding the address must not keep the
   * server unready; the failure is logged and retried).
   */
  get synced(): boolean {
    return this.#loop.attempted;
  }

  async run(signal: AbortSignal): Promise<void> {
    await Promise.all([this.#loop.run(signal), ...this.#informers.map((i) => i.run(signal))]);
  }

  async #pass(): Promise<boolean> {
    try {
      await this.#ensureService();
      const ip = this.#options.publicIp;
      if (ip !== undefined && !isUnusableEndpointIp(ip)) {
        await this.#ensureEndpoints(ip);
        await this.#ensureEndpointSlice(ip);
      }
      return true;
    } catch (err) {
      this.#onError(err, "kubernetes service");
      return false;
    }
  }

  async #ensureService(): Promise<void> {
    const path = `/api/v1/namespaces/${NAMESPACE}/services`;
    const current = await this.#client.call("GET", `${path}/${KUBERNETES_SERVICE}`);
    if (current.status === 200) return;
    if (current.status !== 404) throw new Error(`reading the service: ${current.status}`);
    const reply = await this.#client.call("POST", path, {
      apiVersion: "v1",
      kind: "Service",
      metadata: {
        name: KUBERNETES_SERVICE,
        namespace: NAMESPACE,
        labels: { provider: this.#options.naming.productName, component: "apiserver" },
      },
      spec: {
        type: "ClusterIP",
        clusterIP: this.#options.serviceIp,
        ipFamilyPolicy: "SingleStack",
        sessionAffinity: "None",
        ports: [{ name: PORT_NAME, protocol: "TCP", port: 443, targetPort: this.#options.publicPort }],
      },
    });
    if (reply.status >= 300 && reply.status !== 409)
      throw new Error(`creating the service: ${reply.status} ${JSON.stringify(reply.body)}`);
  }

  async #ensureEndpoints(ip: string): Promise<void> {
    const path = `/api/v1/namespaces/${NAMESPACE}/endpoints`;
    const want = desiredEndpoints(this.#options.naming, ip, this.#options.publicPort);
    const current = await this.#client.call("GET", `${path}/${KUBERNETES_SERVICE}`);
    if (current.status === 404) {
      const reply = await this.#client.call("POST", path, {
        apiVersion: "v1",
        kind: "Endpoints",
        metadata: { name: KUBERNETES_SERVICE, namespace: NAMESPACE, labels: want.labels },
        subsets: want.subsets,
      });
      if (reply.status >= 300)
        throw new Error(`creating the endpoints: ${reply.status} ${JSON.stringify(reply.body)}`);
      return;
    }
    if (current.status !== 200) throw new Error(`reading the endpoints: ${current.status}`);
    const body = current.body as Json & { metadata: Json };
    if (sameJson(body.subsets, want.subsets) && sameJson(body.metadata.labels, want.labels)) return;
    const reply = await this.#client.call("PUT", `${path}/${KUBERNETES_SERVICE}`, {
      ...body,
      metadata: { ...body.metadata, labels: want.labels },
      subsets: want.subsets,
    });
    if (reply.status >= 300)
      throw new Error(`updating the endpoints: ${reply.status} ${JSON.stringify(reply.body)}`);
  }

  async #ensureEndpointSlice(ip: string): Promise<void> {
    const naming = this.#options.naming;
    const path = `/apis/${naming.group("discovery")}/v1/namespaces/${NAMESPACE}/endpointslices`;
    const item = `${path}/${KUBERNETES_SERVICE}`;
    const want = desiredEndpointSlice(naming, ip, this.#options.publicPort);
    const create = async () => {
      const reply = await this.#client.call("POST", path, {
        apiVersion: `${naming.group("discovery")}/v1`,
        kind: "EndpointSlice",
        metadata: { name: KUBERNETES_SERVICE, namespace: NAMESPACE, labels: want.labels },
        addressType: want.addressType,
        endpoints: want.endpoints,
        ports: want.ports,
      });
      if (reply.status >= 300)
        throw new Error(`creating the endpoint slice: ${reply.status} ${JSON.stringify(reply.body)}`);
    };
    const current = await this.#client.call("GET", item);
    if (current.status === 404) return create();
    if (current.status !== 200) throw new Error(`reading the endpoint slice: ${current.status}`);
    const slice = current.body as Json & { metadata: Json };
    // The address type cannot change: a new family means a new slice.
    if (slice.addressType !== want.addressType) {
      const reply = await this.#client.call("DELETE", item);
      if (reply.status >= 300 && reply.status !== 404)
        throw new Error(`deleting the endpoint slice: ${reply.status} ${JSON.stringify(reply.body)}`);
      return create();
    }
    if (
      sameJson(slice.endpoints, want.endpoints) &&
      sameJson(slice.ports, want.ports) &&
      sameJson(slice.metadata.labels, want.labels)
    )
      return;
    const reply = await this.#client.call("PUT", item, {
      ...slice,
      metadata: { ...slice.metadata, labels: want.labels },
      endpoints: want.endpoints,
      ports: want.ports,
    });
    if (reply.status >= 300)
      throw new Error(`updating the endpoint slice: ${reply.status} ${JSON.stringify(reply.body)}`);
  }
}
