// Where a `proxy` subresource request goes, as upstream's ResourceLocation functions decide it: the
// path's name segment may be `<name>`, `<name>:<port>` or `<scheme>:<name>:<port>`; a Pod is
// reached at its first IP, a Node at its preferred address and kubelet port, a Service at a ready
// endpoint address. Addresses that are not global unicast (loopback, link-local, multicast) are
// refused, so the proxy cannot be pointed at the gateway's own host.
import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import { asArray, asString, type JsonObject, objectOrEmpty } from "../../backends/common/json.ts";
import {
  type ServiceDirectory,
  ServiceUnreachableError,
  serviceTargets,
} from "../../backends/services/index.ts";
import { errors } from "../request/api-error.ts";

/** Where to connect: `http:` or `https:`, and `host:port` (IPv6 in brackets). */
export interface ProxyLocation {
  readonly protocol: "http:" | "https:";
  readonly host: string;
  /** A Node's kubelet port: reached with the kubelet client's TLS identity, as upstream. */
  readonly kubelet?: true;
}

export interface SchemeNamePort {
  readonly scheme: string;
  readonly name: string;
  readonly port: string;
}

/** Upstream's SplitSchemeNamePort: undefined when the id has more than three parts, no name, or another scheme. */
export function splitSchemeNamePort(id: string): SchemeNamePort | undefined {
  const parts = id.split(":");
  let split: SchemeNamePort;
  if (parts.length === 1) split = { scheme: "", name: parts[0] as string, port: "" };
  else if (parts.length === 2) split = { scheme: "", name: parts[0] as string, port: parts[1] as string };
  else if (parts.length === 3)
    split = { scheme: parts[0] as string, name: parts[1] as string, port: parts[2] as string };
  else return undefined;
  if (split.name === "" || !["", "http", "https"].includes(split.scheme)) return undefined;
  return split;
}

// Go's net.IP.IsGlobalUnicast refuses these (IPv4-mapped IPv6 addresses match the IPv4 rules).
const notGlobalUnicast = new BlockList();
notGlobalUnicast.addSubnet("0.0.0.0", 32, "ipv4");
notGlobalUnicast.addSubnet("255.255.255.255", 32, "ipv4");
notGlobalUnicast.addSubnet("127.0.0.0", 8, "ipv4");
notGlobalUnicast.addSubnet("169.254.0.0", 16, "ipv4");
notGlobalUnicast.addSubnet("224.0.0.0", 4, "ipv4");
notGlobalUnicast.addSubnet("::", 128, "ipv6");
notGlobalUnicast.addSubnet("::1", 128, "ipv6");
notGlobalUnicast.addSubnet("fe80::", 10, "ipv6");
notGlobalUnicast.addSubnet("ff00::", 8, "ipv6");

/** An IP literal that is neither unspecified, loopback, link-local, multicast nor broadcast. */
export function isGlobalUnicast(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return !notGlobalUnicast.check(address, family === 4 ? "ipv4" : "ipv6");
}

function hostPort(host: string, port: string): string {
  return `${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/** A port as the request names it, checked before it goes into a URL. */
function portNumber(port: string, id: string, kind: string): string {
  const n = Number(port);
  if (!/^[0-9]+$/.test(port) || n < 1 || n > 65535)
    throw errors.badRequest(`invalid ${kind} request ${JSON.stringify(id)}`);
  return String(n);
}

function defaultPort(protocol: "http:" | "https:"): string {
  return protocol === "https:" ? "443" : "80";
}

function protocolOf(scheme: string): "http:" | "https:" {
  // Upstream leaves the scheme empty when none is named, and its proxy then speaks plain HTTP.
  return scheme === "https" ? "https:" : "http:";
}

/** Upstream's pod.ResourceLocation: the pod's first IP, at the named port or its first container port. */
export function podLocation(pod: JsonObject, split: SchemeNamePort): ProxyLocation {
  const status = objectOrEmpty(pod.status);
  const podIPs = asArray(status.podIPs).map(objectOrEmpty);
  const ip = podIPs.length > 0 ? asString(podIPs[0]?.ip) : asString(status.podIP);
  let port = split.port;
  if (port === "") {
    for (const container of asArray(objectOrEmpty(pod.spec).containers).map(objectOrEmpty)) {
      const first = asArray(container.ports).map(objectOrEmpty)[0];
      if (first) {
        port = String(first.containerPort);
        break;
      }
    }
  }
  if (!isGlobalUnicast(ip)) throw errors.badRequest("address not allowed");
  const protocol = protocolOf(split.scheme);
  const id = [split.scheme, split.name, split.port].filter((s) => s !== "").join(":");
  // No port at all: the scheme's own, as a URL without one means.
  return { protocol, host: hostPort(ip, port === "" ? defaultPort(protocol) : portNumber(port, id, "pod")) };
}

/** kube-apiserver's default `--kubelet-preferred-address-types`. */
const PREFERRED_ADDRESS_TYPES = ["Hostname", "InternalDNS", "InternalIP", "ExternalDNS", "ExternalIP"];
/** Upstream's kubelet port, used when a Node reports none. */
const DEFAULT_KUBELET_PORT = 10250;

/** The resolver node addresses go through; tests of the refusal paths pass their own. */
export type AddressLookup = (hostname: string) => Promise<readonly string[]>;

const systemLookup: AddressLookup = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/**
 * Upstream's node.ResourceLocation: the kubelet (https, its reported port) unless another port is
 * named; the address of the first preferred type, every address it resolves to global unicast.
 */
export async function nodeLocation(
  node: JsonObject,
  split: SchemeNamePort,
  resolve: AddressLookup = systemLookup,
): Promise<ProxyLocation> {
  const status = objectOrEmpty(node.status);
  const addresses = asArray(status.addresses).map(objectOrEmpty);
  let host: string | undefined;
  for (const type of PREFERRED_ADDRESS_TYPES) {
    const found = addresses.find((a) => a.type === type);
    if (found) {
      host = asString(found.address);
      break;
    }
  }
  if (host === undefined) {
    // Go prints the addresses as `[{InternalIP 10.0.0.1} ...]`.
    const known = addresses.map((a) => `{${asString(a.type)} ${asString(a.address)}}`).join(" ");
    throw errors.unavailable(`no preferred addresses found; known addresses: [${known}]`);
  }
  let resolved: readonly string[];
  try {
    resolved = isIP(host) ? [host] : await resolve(host);
  } catch (err) {
    throw errors.badRequest(`lookup ${host}: ${(err as Error).message}`);
  }
  if (resolved.length === 0) throw errors.badRequest("no addresses for hostname");
  if (!resolved.every(isGlobalUnicast)) throw errors.badRequest("address not allowed");
  const reported = objectOrEmpty(objectOrEmpty(objectOrEmpty(status.daemonEndpoints).kubeletEndpoint)).Port;
  const kubeletPort = String(typeof reported === "number" && reported > 0 ? reported : DEFAULT_KUBELET_PORT);
  if (split.port === "" || split.port === kubeletPort)
    return { protocol: "https:", host: hostPort(host, kubeletPort), kubelet: true };
  const id = `${split.scheme}:${split.name}:${split.port}`;
  return { protocol: protocolOf(split.scheme), host: hostPort(host, portNumber(split.port, id, "node")) };
}

/**
 * Upstream's service ResourceLocation: a ready endpoint address at the endpoint port named like the
 * Service port the request names (by name, by number, or the unnamed one when none is named).
 */
export async function serviceLocation(
  directory: ServiceDirectory,
  namespace: string,
  id: string,
  split: SchemeNamePort,
): Promise<ProxyLocation> {
  const noEndpoints = (name: string) =>
    errors.unavailable(`no endpoints available for service ${JSON.stringify(name)}`);
  const service = await directory.service(namespace, split.name);
  if (!service) throw errors.notFound({ group: "", resource: "services" }, split.name);
  const ports = asArray(objectOrEmpty(service.spec).ports).map(objectOrEmpty);
  let port: JsonObject | undefined;
  if (/^[0-9]+$/.test(split.port)) {
    port = ports.find((p) => p.port === Number(split.port));
    if (!port)
      throw errors.unavailable(
        `no service port ${Number(split.port)} found for service ${JSON.stringify(split.name)}`,
      );
  } else {
    port = ports.find((p) => asString(p.name) === split.port);
    if (!port) throw noEndpoints(id);
  }
  // An ExternalName Service has no endpoints: the proxy never follows it to an outside host.
  if (objectOrEmpty(service.spec).type === "ExternalName") throw noEndpoints(split.name);
  let urls: string[];
  try {
    const targets = await serviceTargets(directory, { namespace, name: split.name, port: Number(port.port) });
    urls = targets.map((t) => t.url);
  } catch (err) {
    if (!(err instanceof ServiceUnreachableError)) throw err;
    throw err.reason === "EndpointsNotFound" ? noEndpoints(split.name) : noEndpoints(id);
  }
  // Only IP endpoints that may be proxied to (an FQDN slice could name anything). The targets
  // are https URLs, whose default port the URL parser drops.
  const hosts: string[] = [];
  for (const url of urls) {
    const u = new URL(url);
    const ip = u.hostname.replace(/^\[|\]$/g, "");
    if (isGlobalUnicast(ip)) hosts.push(hostPort(ip, u.port || "443"));
  }
  if (hosts.length === 0) throw noEndpoints(id);
  return {
    protocol: protocolOf(split.scheme),
    host: hosts[Math.floor(Math.random() * hosts.length)] as string,
  };
}
