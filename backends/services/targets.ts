// Where a call to a Service goes. This server runs no kube-proxy, so a Service's cluster IP routes
// nowhere by itself: calls go to a ready address of its EndpointSlices (at the slice port named
// like the Service port), or to an ExternalName Service's host. Callers that sit behind a real
// service network may ask for the cluster IP instead. TLS always checks `<name>.<namespace>.svc`.
import { asArray, asObject, objectOrEmpty } from "../common/json.ts";
import type { ServiceDirectory } from "./directory.ts";

export interface ServiceReference {
  readonly namespace: string;
  readonly name: string;
  readonly port: number;
  /** A path to append (webhooks name one; "" or absent for none). */
  readonly path?: string;
}

export interface ServiceTarget {
  /** `https://<host>:<port><path>` */
  readonly url: string;
  /** The name the serving certificate must carry. */
  readonly serverName: string;
}

/** Why a Service cannot be called, with upstream's availability reasons. */
export type ServiceProblem =
  | "ServiceNotFound"
  | "ServicePortError"
  | "EndpointsNotFound"
  | "MissingEndpoints";

/**
 * A Service that cannot be called. The message is upstream's availability wording; callers with
 * wording of their own (admission webhooks) build it from `reason`, `ref` and `portName`.
 */
export class ServiceUnreachableError extends Error {
  readonly reason: ServiceProblem;
  readonly ref: ServiceReference;
  /** The Service port's name, once the port was found. */
  readonly portName: string | undefined;

  constructor(reason: ServiceProblem, ref: ServiceReference, message: string, portName?: string) {
    super(message);
    this.name = "ServiceUnreachableError";
    this.reason = reason;
    this.ref = ref;
    this.portName = portName;
  }
}

export interface ResolveOptions {
  /** Call the Service's cluster IP rather than its endpoints (only behind a real service network). */
  readonly clusterIp?: boolean;
}

function hostPort(host: string, port: number): string {
  return `${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/** Every address the Service may be called at (callers pick one); throws ServiceUnreachableError. */
export async function serviceTargets(
  directory: ServiceDirectory,
  ref: ServiceReference,
  options: ResolveOptions = {},
): Promise<ServiceTarget[]> {
  const serverName = `${ref.name}.${ref.namespace}.svc`;
  const path = ref.path ?? "";
  const where = `service/${ref.name} in ${JSON.stringify(ref.namespace)}`;
  const service = await directory.service(ref.namespace, ref.name);
  if (!service) throw new ServiceUnreachableError("ServiceNotFound", ref, `${where} is not present`);
  const spec = objectOrEmpty(service.spec);
  if (spec.type === "ExternalName" && typeof spec.externalName === "string")
    return [{ url: `https://${hostPort(spec.externalName, ref.port)}${path}`, serverName }];
  const port = asArray(spec.ports)
    .map(objectOrEmpty)
    .find((p) => p.port === ref.port);
  if (!port)
    throw new ServiceUnreachableError(
      "ServicePortError",
      ref,
      `${where} is not listening on port ${ref.port}`,
    );
  if (options.clusterIp) {
    const ip = typeof spec.clusterIP === "string" && spec.clusterIP !== "None" ? spec.clusterIP : "";
    if (ip === "") throw new ServiceUnreachableError("MissingEndpoints", ref, `${where} has no cluster IP`);
    return [{ url: `https://${hostPort(ip, ref.port)}${path}`, serverName }];
  }
  const portName = typeof port.name === "string" ? port.name : "";
  const slices = await directory.endpointSlices(ref.namespace, ref.name);
  if (slices.length === 0)
    throw new ServiceUnreachableError(
      "EndpointsNotFound",
      ref,
      `cannot find endpoints for ${where}`,
      portName,
    );
  const targets: ServiceTarget[] = [];
  for (const slice of slices) {
    const slicePort = asArray(slice.ports)
      .map(objectOrEmpty)
      .find((p) => (typeof p.name === "string" ? p.name : "") === portName);
    if (!slicePort || typeof slicePort.port !== "number") continue;
    for (const endpoint of asArray(slice.endpoints).map(objectOrEmpty)) {
      if (asObject(endpoint.conditions)?.ready === false) continue;
      const address = asArray(endpoint.addresses).find((x): x is string => typeof x === "string");
      if (address) targets.push({ url: `https://${hostPort(address, slicePort.port)}${path}`, serverName });
    }
  }
  if (targets.length === 0)
    throw new ServiceUnreachableError(
      "MissingEndpoints",
      ref,
      `endpoints for ${where} have no addresses with port name ${JSON.stringify(portName)}`,
      portName,
    );
  return targets;
}
