// Where a webhook named by a Service reference is reached: the shared Service resolution
// (backends/services: a ready address of its EndpointSlices, or an ExternalName's host), with the
// admission webhook's own wording of why a Service cannot be called.
import type { Naming } from "../../../backends/naming/index.ts";
import { serviceTargets as resolve, ServiceUnreachableError } from "../../../backends/services/index.ts";
import { type ObjectAccess, serviceDirectory } from "../../objects/index.ts";
import { CallError } from "./call-error.ts";
import type { ServiceReference } from "./hooks.ts";

export interface Target {
  readonly server: string;
  readonly tlsServerName?: string;
}

/** The ready addresses a Service reference may be called at (all of them; callers pick one). */
export async function serviceTargets(
  objects: ObjectAccess,
  naming: Naming,
  ref: ServiceReference,
): Promise<Target[]> {
  try {
    const targets = await resolve(serviceDirectory(objects, naming), ref);
    return targets.map((t) => ({ server: t.url, tlsServerName: t.serverName }));
  } catch (err) {
    if (!(err instanceof ServiceUnreachableError)) throw err;
    switch (err.reason) {
      case "ServiceNotFound":
        throw new CallError(`failed to call webhook: service "${ref.namespace}/${ref.name}" not found`);
      case "ServicePortError":
        throw new CallError(
          `failed to call webhook: no service port ${ref.port} found for service "${ref.name}"`,
        );
      default:
        throw new CallError(`failed to call webhook: no endpoints available for service "${ref.name}"`);
    }
  }
}
