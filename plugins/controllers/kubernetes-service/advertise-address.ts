// The address the server advertises to the cluster (the `kubernetes` Service's endpoint), chosen
// as upstream's kube-apiserver chooses it: `--advertise-address` when set, else the bind address,
// except that an unspecified or loopback bind address is replaced by the host's own address: that
// of the interface the default route leaves through, in the bind address's family (IPv4 first for
// an unset one), or any up, non-loopback interface's global address when there is no route table.
import { readFileSync } from "node:fs";
import { isIPv4, isIPv6 } from "node:net";
import { networkInterfaces } from "node:os";

type Family = "IPv4" | "IPv6";

interface InterfaceAddress {
  readonly address: string;
  readonly family: Family | string | number;
  readonly internal: boolean;
}

export interface HostNetwork {
  /** Interface names of default routes, by family (e.g. from /proc/net/route and ipv6_route). */
  readonly defaultRouteInterfaces: (family: Family) => readonly string[] | undefined;
  readonly interfaces: () => Readonly<Record<string, readonly InterfaceAddress[] | undefined>>;
}

/** A loopback, unspecified or other address an endpoint may not carry (upstream's rules). */
export function isUnusableEndpointIp(ip: string): boolean {
  if (isIPv4(ip)) {
    const [a = 0, b = 0] = ip.split(".").map(Number);
    return a === 0 || a === 127 || (a === 169 && b === 254) || a >= 224;
  }
  if (!isIPv6(ip)) return true;
  const lower = ip.toLowerCase();
  return (
    lower === "::" ||
    lower === "::1" ||
    /^fe[89ab]/.test(lower) ||
    lower.startsWith("ff") ||
    lower.startsWith("::ffff:")
  );
}

function familyOf(entry: InterfaceAddress): Family {
  // Node 18.0-18.3 spelled the family as a number.
  return entry.family === 6 || entry.family === "IPv6" ? "IPv6" : "IPv4";
}

/** A global unicast address: not loopback, link-local, unspecified or multicast. */
function isGlobalUnicast(ip: string): boolean {
  return !isUnusableEndpointIp(ip);
}

function readDefaultRoutes(family: Family): string[] | undefined {
  const file = family === "IPv4" ? "/proc/net/route" : "/proc/net/ipv6_route";
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  const out: string[] = [];
  for (const line of text.split("\n")) {
    const cols = line.trim().split(/\s+/);
    if (family === "IPv4") {
      // Iface Destination Gateway ...: the default route has destination 00000000.
      if (cols.length > 2 && cols[1] === "00000000" && cols[0] !== "Iface") out.push(cols[0] as string);
    } else if (cols.length >= 10 && /^0{32}$/.test(cols[0] ?? "") && cols[1] === "00") {
      out.push(cols[9] as string);
    }
  }
  return out;
}

export const hostNetwork: HostNetwork = {
  defaultRouteInterfaces: readDefaultRoutes,
  interfaces: () => networkInterfaces() as Record<string, InterfaceAddress[] | undefined>,
};

/** The host's address as upstream's ChooseHostInterface picks it; undefined when it has none. */
export function hostAddress(
  preferred: readonly Family[],
  net: HostNetwork = hostNetwork,
): string | undefined {
  const interfaces = net.interfaces();
  const v4Routes = net.defaultRouteInterfaces("IPv4");
  if (v4Routes === undefined) {
    // No route table to read: any up, non-loopback interface's global address.
    for (const family of preferred) {
      for (const entries of Object.values(interfaces)) {
        const hit = (entries ?? []).find(
          (e) => !e.internal && familyOf(e) === family && isGlobalUnicast(e.address),
        );
        if (hit) return hit.address;
      }
    }
    return undefined;
  }
  const routes: Record<Family, readonly string[]> = {
    IPv4: v4Routes,
    IPv6: net.defaultRouteInterfaces("IPv6") ?? [],
  };
  for (const family of preferred) {
    for (const name of routes[family]) {
      const hit = (interfaces[name] ?? []).find((e) => familyOf(e) === family && isGlobalUnicast(e.address));
      if (hit) return hit.address;
      // Routed through link-local addresses only: a global address on the loopback interface.
      const onLoopback = Object.values(interfaces)
        .flatMap((entries) => entries ?? [])
        .find((e) => e.internal && familyOf(e) === family && isGlobalUnicast(e.address));
      if (onLoopback) return onLoopback.address;
    }
  }
  return undefined;
}

/**
 * The advertised address: `advertise` when set (and specified), else `bind` unless it is
 * unspecified or loopback, else the host's address in the bind address's family.
 */
export function advertiseAddress(
  bind: string,
  advertise: string | undefined,
  net: HostNetwork = hostNetwork,
): string | undefined {
  if (advertise && advertise !== "0.0.0.0" && advertise !== "::") return advertise;
  const unspecified = bind === "" || bind === "0.0.0.0" || bind === "::";
  const loopback = (isIPv4(bind) && bind.startsWith("127.")) || bind === "::1";
  if (!unspecified && !loopback) return bind;
  return hostAddress(isIPv6(bind) ? ["IPv6", "IPv4"] : ["IPv4", "IPv6"], net);
}
