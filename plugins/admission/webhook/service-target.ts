// Where a webhook named by a Service reference is reached: a ready address of the Service's
// EndpointSlices (the port of the slice that matches the Service port's name), or an
// ExternalName Service's host; TLS checks the name `<service>.<namespace>.svc`.

import { asArray as list, objectOrEmpty as obj } from "../../../backends/common/json.ts";
import type { Naming } from "../../../backends/naming/index.ts";
import type { ObjectAccess } from "../../objects/index.ts";
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
  const tlsServerName = `${ref.name}.${ref.namespace}.svc`;
  const service = await objects.get({ group: "", resource: "services" }, ref.namespace, ref.name);
  if (!service)
    throw new CallError(`failed to call webhook: service "${ref.namespace}/${ref.name}" not found`);
  const spec = obj(service.spec);
  if (spec.type === "ExternalName" && typeof spec.externalName === "string")
    return [{ server: `https://${spec.externalName}:${ref.port}${ref.path}`, tlsServerName }];
  const port = list(spec.ports)
    .map(obj)
    .find((p) => p.port === ref.port);
  if (!port)
    throw new CallError(
      `failed to call webhook: no service port ${ref.port} found for service "${ref.name}"`,
    );
  const portName = typeof port.name === "string" ? port.name : "";
  const slices = objects.informer({ group: naming.group("discovery"), resource: "endpointslices" });
  await slices?.synced;
  const label = naming.label("service-name");
  const targets: Target[] = [];
  for (const slice of slices?.list(ref.namespace) ?? []) {
    if (obj(obj(slice.metadata).labels)[label] !== ref.name) continue;
    const slicePort = list(slice.ports)
      .map(obj)
      .find((p) => (typeof p.name === "string" ? p.name : "") === portName);
    if (!slicePort || typeof slicePort.port !== "number") continue;
    for (const e of list(slice.endpoints).map(obj)) {
      if (obj(e.conditions).ready === false) continue;
      const address = list(e.addresses).find((x): x is string => typeof x === "string");
      if (!address) continue;
      const host = address.includes(":") ? `[${address}]` : address;
      targets.push({ server: `https://${host}:${slicePort.port}${ref.path}`, tlsServerName });
    }
  }
  if (targets.length === 0)
    throw new CallError(`failed to call webhook: no endpoints available for service "${ref.name}"`);
  return targets;
}
