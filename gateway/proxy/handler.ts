// The `proxy` subresource of pods, services and nodes (upstream's Connecter for them): authorization
// has already checked `<resource>/proxy` with the method's verb; admission sees a CONNECT of the
// resource's proxy options; then the request goes to the place the name points at and the answer
// streams back.
import { posix } from "node:path";
import type { JsonObject } from "../../backends/common/json.ts";
import type { HandlerEnv } from "../handlers/env.ts";
import { admissionFor } from "../handlers/write-admission.ts";
import type { RequestContext } from "../pipeline/index.ts";
import { errors } from "../request/api-error.ts";
import type { ServedResource } from "../routing/resources.ts";
import { forward } from "./forward.ts";
import {
  nodeLocation,
  type ProxyLocation,
  podLocation,
  serviceLocation,
  splitSchemeNamePort,
} from "./location.ts";

/** Upstream's proxy ConnectMethods. */
const METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]);

/** The core resources with a proxy subresource, and the options kind admission sees. */
const PROXIED: ReadonlyMap<string, { readonly kind: string; readonly singular: string }> = new Map([
  ["pods", { kind: "PodProxyOptions", singular: "pod" }],
  ["services", { kind: "ServiceProxyOptions", singular: "service" }],
  ["nodes", { kind: "NodeProxyOptions", singular: "node" }],
]);

/** Whether routing should hand the request here. */
export function isProxySubresource(served: ServedResource, subresource: string | undefined): boolean {
  return subresource === "proxy" && served.schema.group === "" && PROXIED.has(served.schema.plural);
}

async function read(
  served: ServedResource,
  namespace: string | undefined,
  name: string,
): Promise<JsonObject> {
  return JSON.parse((await served.registry.get(namespace, name)).json) as JsonObject;
}

export async function handleProxy(
  ctx: RequestContext,
  env: HandlerEnv,
  served: ServedResource,
): Promise<void> {
  const info = ctx.info;
  const proxied = PROXIED.get(served.schema.plural);
  if (!info || !proxied || !env.proxy) throw errors.pageNotFound();
  if (!METHODS.has(ctx.req.method)) throw errors.methodNotAllowed();
  const id = info.name;
  const split = splitSchemeNamePort(id);
  if (!split) throw errors.badRequest(`invalid ${proxied.singular} request ${JSON.stringify(id)}`);
  const namespace = served.schema.namespaced ? info.namespace : undefined;

  // The path below `proxy/` as upstream reads it: the decoded segments, a leading slash, and the
  // request's trailing slash kept.
  let path = info.parts.slice(3).join("/");
  if (path !== "" && !path.startsWith("/")) path = `/${path}`;
  if (info.path.endsWith("/") && !path.endsWith("/")) path += "/";

  const admission = admissionFor(ctx, env, {
    served,
    subresource: "proxy",
    namespace,
    name: id,
    dryRun: false,
    operation: "CONNECT",
    kind: { group: "", version: "v1", kind: proxied.kind },
  });
  if (admission) {
    const options: JsonObject = { kind: proxied.kind, apiVersion: "v1", ...(path ? { path } : {}) };
    await admission.admit(options, undefined);
    await admission.validate(options, undefined);
  }

  let location: ProxyLocation;
  if (served.schema.plural === "services")
    location = await serviceLocation(env.proxy.directory, namespace ?? "", id, split);
  else if (served.schema.plural === "pods")
    location = podLocation(await read(served, namespace, split.name), split);
  else location = await nodeLocation(await read(served, undefined, split.name), split);

  // Cleaned as Go's path.Join does, so `..` never climbs above the target's root.
  const clean = path === "" ? "" : posix.join("/", path);
  if (clean === "" && (ctx.req.method === "GET" || ctx.req.method === "HEAD")) {
    // Upstream sends a bare `.../proxy` to `.../proxy/`, so relative links on the page resolve.
    const raw = ctx.req.url;
    const q = raw.indexOf("?");
    const location = q >= 0 ? `${raw.slice(0, q)}/${raw.slice(q)}` : `${raw}/`;
    ctx.reply.code(301).header("location", location).send();
    ctx.done = true;
    return;
  }
  const suffix = info.path.endsWith("/") && !clean.endsWith("/") ? `${clean}/` : clean;
  const prefix = suffix !== "" && info.path.endsWith(suffix) ? info.path.slice(0, -suffix.length) : info.path;
  // Upstream's proxy transport checks no certificate: it dials addresses, not names. A Node's
  // kubelet port is reached as the kubelet client, as upstream's node proxy does.
  const dispatcher = env.proxy.dispatchers.get(
    location.kubelet ? env.proxy.kubelet : { serverName: "", insecure: true },
  );
  await forward(ctx, dispatcher, { location, path: clean, prefix });
}
