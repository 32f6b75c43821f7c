// Cluster IPs, node ports and health check node ports for Services: allocated on create (and when
// an update starts to need them), checked when requested, and free again once the Service is gone
// or no longer holds them. What is in use is read from the Services themselves (the watch cache),
// plus reservations of writes not yet visible there, so nothing is kept that could drift from the
// stored objects.
import { asArray, asObject, asString, type JsonObject } from "../common/json.ts";
import { type FieldError, field } from "../registry/field-error.ts";

export interface ServiceRanges {
  /** `--service-cluster-ip-range`, e.g. `10.0.0.0/24` (IPv4 or IPv6). */
  readonly clusterIpRange: string;
  /** `--service-node-port-range`, e.g. `30000-32767`. */
  readonly nodePortRange: string;
}

export const DEFAULT_SERVICE_RANGES: ServiceRanges = {
  clusterIpRange: "10.0.0.0/24",
  nodePortRange: "30000-32767",
};

export class ServiceRangeError extends Error {}

interface Cidr {
  readonly family: "IPv4" | "IPv6";
  readonly base: bigint;
  readonly size: bigint;
  readonly text: string;
}

function parseIPv4(text: string): bigint | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  let n = 0n;
  for (const p of parts) {
    if (!/^(0|[1-9]\d{0,2})$/.test(p) || Number(p) > 255) return undefined;
    n = (n << 8n) | BigInt(p);
  }
  return n;
}

function parseIPv6(text: string): bigint | undefined {
  if (!/^[0-9a-fA-F:]+$/.test(text) || !text.includes(":")) return undefined;
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const head = halves[0] ? halves[0].split(":") : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(":") : [];
  const missing = 8 - head.length - tail.length;
  if ((halves.length === 1 && missing !== 0) || missing < 0) return undefined;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...tail];
  let n = 0n;
  for (const g of groups) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
    n = (n << 16n) | BigInt(Number.parseInt(g, 16));
  }
  return n;
}

/** An IP address as a number and its family; undefined when it is not one. */
export function parseIp(text: string): { family: "IPv4" | "IPv6"; value: bigint } | undefined {
  const v4 = parseIPv4(text);
  if (v4 !== undefined) return { family: "IPv4", value: v4 };
  const v6 = parseIPv6(text);
  return v6 !== undefined ? { family: "IPv6", value: v6 } : undefined;
}

function formatIp(family: "IPv4" | "IPv6", value: bigint): string {
  if (family === "IPv4") {
    return [24n, 16n, 8n, 0n].map((s) => String((value >> s) & 255n)).join(".");
  }
  const groups: string[] = [];
  for (let s = 112n; s >= 0n; s -= 16n) groups.push(((value >> s) & 0xffffn).toString(16));
  // The longest run of zero groups collapses to `::`, as Go prints addresses.
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== "0") {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === "0") j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  if (best < 0) return groups.join(":");
  return `${groups.slice(0, best).join(":")}::${groups.slice(best + bestLen).join(":")}`;
}

export function parseCidr(text: string): Cidr {
  const [ip, bits] = text.split("/");
  const parsed = parseIp(ip ?? "");
  const width = parsed?.family === "IPv6" ? 128 : 32;
  const prefix = Number(bits);
  if (!parsed || bits === undefined || !/^\d+$/.test(bits) || prefix > width) {
    throw new ServiceRangeError(`invalid CIDR address: ${text}`);
  }
  const size = 1n << BigInt(width - prefix);
  // Upstream needs room for the network and broadcast addresses and at least one more.
  if (size < 4n) throw new ServiceRangeError(`${text}: the range is too small`);
  return { family: parsed.family, base: parsed.value - (parsed.value % size), size, text };
}

export function parseNodePortRange(text: string): { first: number; last: number } {
  const m = /^(\d+)(?:-(\d+)|\+(\d+))?$/.exec(text.trim());
  if (!m) throw new ServiceRangeError(`invalid port range: ${text}`);
  const first = Number(m[1]);
  const last = m[2] !== undefined ? Number(m[2]) : m[3] !== undefined ? first + Number(m[3]) : first;
  if (first < 1 || last > 65535 || last < first) throw new ServiceRangeError(`invalid port range: ${text}`);
  return { first, last };
}

const HEADLESS = "None";

/** A Service's cluster IPs: `clusterIPs`, or the older single `clusterIP`. */
function clusterIps(spec: JsonObject): string[] {
  const list = asArray(spec.clusterIPs).map(asString).filter(Boolean);
  if (list.length > 0) return list;
  const one = asString(spec.clusterIP);
  return one ? [one] : [];
}

function needsNodePorts(type: string): boolean {
  return type === "NodePort" || type === "LoadBalancer";
}

/** The longest a write's allocation is held while no list has shown how the write ended. */
const RESERVATION_MS = 60_000;

/**
 * What one write picked, held from allocation until a list of the Services shows the write's
 * outcome: `stored` is the revision the write was stored at (a list at that revision or later
 * holds the Service, or its later deletion). A write that stores nothing lets go at once.
 */
interface Reservation {
  readonly expires: number;
  stored?: number;
}

export interface ServiceAllocation {
  readonly causes: FieldError[];
  settle(revision: number | undefined): void;
}

export class ServiceAllocator {
  readonly #cidr: Cidr;
  readonly #ports: { first: number; last: number };
  readonly #reservedIps = new Map<string, Reservation>();
  readonly #reservedPorts = new Map<number, Reservation>();

  constructor(ranges: ServiceRanges = DEFAULT_SERVICE_RANGES) {
    this.#cidr = parseCidr(ranges.clusterIpRange);
    this.#ports = parseNodePortRange(ranges.nodePortRange);
  }

  /** The first address after the network's, which upstream gives the API's own Service. */
  get firstIp(): string {
    return formatIp(this.#cidr.family, this.#cidr.base + 1n);
  }

  #expire(now: number, listRevision: number): void {
    const over = (r: Reservation) => r.expires < now || (r.stored !== undefined && r.stored <= listRevision);
    for (const [k, r] of this.#reservedIps) if (over(r)) this.#reservedIps.delete(k);
    for (const [k, r] of this.#reservedPorts) if (over(r)) this.#reservedPorts.delete(k);
  }

  /**
   * Allocates for a write (see `allocate`) given the Services listed at `listRevision`; the
   * write then settles what it picked with the revision it was stored at, or none.
   */
  reserve(
    object: JsonObject,
    old: JsonObject | undefined,
    others: readonly JsonObject[],
    listRevision: number,
  ): ServiceAllocation {
    const now = Date.now();
    this.#expire(now, listRevision);
    const reservation: Reservation = { expires: now + RESERVATION_MS };
    const causes = this.#pick(object, old, others, reservation);
    return {
      causes,
      settle: (revision) => {
        if (revision !== undefined) {
          reservation.stored = revision;
          return;
        }
        for (const [k, r] of this.#reservedIps) if (r === reservation) this.#reservedIps.delete(k);
        for (const [k, r] of this.#reservedPorts) if (r === reservation) this.#reservedPorts.delete(k);
      },
    };
  }

  /**
   * Fills in clusterIP(s), IP families and node ports of a Service being created or updated,
   * given the other Services that exist. Returns field errors for requests that cannot be met.
   */
  allocate(object: JsonObject, old: JsonObject | undefined, others: readonly JsonObject[]): FieldError[] {
    return this.reserve(object, old, others, 0).causes;
  }

  #pick(
    object: JsonObject,
    old: JsonObject | undefined,
    others: readonly JsonObject[],
    reservation: Reservation,
  ): FieldError[] {
    const spec = asObject(object.spec);
    if (!spec) return [];
    const self = `${asString(asObject(object.metadata)?.namespace)}/${asString(asObject(object.metadata)?.name)}`;
    const usedIps = new Set<string>();
    const usedPorts = new Set<number>();
    for (const other of others) {
      const m = asObject(other.metadata);
      const isSelf = `${asString(m?.namespace)}/${asString(m?.name)}` === self;
      const s = asObject(other.spec) ?? {};
      // A stored Service shows its own allocation: its reservation is no longer needed, so a
      // deleted Service frees its addresses at once.
      for (const ip of clusterIps(s)) {
        this.#reservedIps.delete(ip);
        if (!isSelf) usedIps.add(ip);
      }
      for (const n of [...asArray(s.ports).map((p) => asObject(p)?.nodePort), s.healthCheckNodePort]) {
        if (typeof n !== "number" || n === 0) continue;
        this.#reservedPorts.delete(n);
        if (!isSelf) usedPorts.add(n);
      }
    }
    for (const ip of this.#reservedIps.keys()) usedIps.add(ip);
    for (const port of this.#reservedPorts.keys()) usedPorts.add(port);
    const errs: FieldError[] = [];
    const type = asString(spec.type) || "ClusterIP";
    if (type === "ExternalName") {
      delete spec.clusterIP;
      delete spec.clusterIPs;
      return errs;
    }
    const oldSpec = asObject(old?.spec);
    const oldIps = oldSpec ? clusterIps(oldSpec) : [];
    let ips = clusterIps(spec);
    if (ips.length === 0 && oldIps.length > 0 && asString(oldSpec?.type) !== "ExternalName") ips = oldIps;
    if (ips.length === 0 || ips[0] === "") {
      const ip = this.#freeIp(usedIps);
      if (!ip) {
        errs.push(field.forbidden("spec.clusterIPs", "failed to allocate a serviceIP: range is full"));
        return errs;
      }
      ips = [ip];
    } else if (ips[0] !== HEADLESS && !oldIps.includes(ips[0] as string)) {
      const ip = ips[0] as string;
      const parsed = parseIp(ip);
      if (!parsed || !this.#inRange(parsed)) {
        errs.push(
          field.invalid(
            "spec.clusterIPs",
            ips,
            `failed to allocate IP ${ip}: the provided IP (${ip}) is not in the valid range. The range of valid IPs is ${this.#cidr.text}`,
          ),
        );
      } else if (usedIps.has(ip)) {
        errs.push(
          field.invalid(
            "spec.clusterIPs",
            ips,
            `failed to allocate IP ${ip}: provided IP is already allocated`,
          ),
        );
      }
    }
    if (errs.length > 0) return errs;
    spec.clusterIP = ips[0];
    spec.clusterIPs = ips;
    if (spec.ipFamilies === undefined) spec.ipFamilies = [this.#cidr.family];
    if (spec.ipFamilyPolicy === undefined) spec.ipFamilyPolicy = "SingleStack";
    const pendingPorts: number[] = [];

    if (needsNodePorts(type)) {
      const oldPorts = new Set(
        asArray(oldSpec?.ports)
          .map((p) => asObject(p)?.nodePort)
          .filter((n): n is number => typeof n === "number"),
      );
      const ports = asArray(spec.ports).map((p) => asObject(p));
      // Requested ports first, so an automatic pick never takes one a later port asks for.
      ports.forEach((port, i) => {
        const requested = port?.nodePort;
        if (typeof requested !== "number" || requested === 0 || oldPorts.has(requested)) return;
        if (requested < this.#ports.first || requested > this.#ports.last) {
          errs.push(
            field.invalid(
              `spec.ports[${i}].nodePort`,
              requested,
              `provided port is not in the valid range. The range of valid ports is ${this.#ports.first}-${this.#ports.last}`,
            ),
          );
        } else if (usedPorts.has(requested)) {
          errs.push(
            field.invalid(`spec.ports[${i}].nodePort`, requested, "provided port is already allocated"),
          );
        } else {
          usedPorts.add(requested);
          pendingPorts.push(requested);
        }
      });
      // A load balancer may do without node ports; ports asked for are still honoured.
      const automatic = type === "NodePort" || spec.allocateLoadBalancerNodePorts !== false;
      ports.forEach((port, i) => {
        if (!port || (typeof port.nodePort === "number" && port.nodePort !== 0) || !automatic) return;
        const free = this.#freePort(usedPorts);
        if (free === undefined) {
          errs.push(
            field.forbidden(`spec.ports[${i}].nodePort`, "failed to allocate a nodePort: range is full"),
          );
          return;
        }
        port.nodePort = free;
        usedPorts.add(free);
        pendingPorts.push(free);
      });
    }
    if (type === "LoadBalancer" && asString(spec.externalTrafficPolicy) === "Local") {
      const picked = this.#healthCheckNodePort(spec, oldSpec, usedPorts, errs);
      if (picked !== undefined) pendingPorts.push(picked);
    }
    // Only a write that goes ahead holds what it picked.
    if (errs.length === 0) {
      for (const ip of ips) if (ip !== HEADLESS) this.#reservedIps.set(ip, reservation);
      for (const port of pendingPorts) this.#reservedPorts.set(port, reservation);
    }
    return errs;
  }

  /**
   * The health check node port of a LoadBalancer with the Local traffic policy: the one it had,
   * the one asked for if free, or any free one. Returns a port newly taken.
   */
  #healthCheckNodePort(
    spec: JsonObject,
    oldSpec: JsonObject | undefined,
    usedPorts: Set<number>,
    errs: FieldError[],
  ): number | undefined {
    const requested = typeof spec.healthCheckNodePort === "number" ? spec.healthCheckNodePort : 0;
    const hadOne =
      asString(oldSpec?.type) === "LoadBalancer" && asString(oldSpec?.externalTrafficPolicy) === "Local";
    if (requested !== 0 && hadOne && requested === oldSpec?.healthCheckNodePort) return undefined;
    if (requested === 0) {
      const free = this.#freePort(usedPorts);
      if (free === undefined) {
        errs.push(
          field.forbidden(
            "spec.healthCheckNodePort",
            "failed to allocate a HealthCheck NodePort: range is full",
          ),
        );
        return undefined;
      }
      spec.healthCheckNodePort = free;
      usedPorts.add(free);
      return free;
    }
    // The Service's own node ports count as taken too.
    const own = asArray(spec.ports).some((p) => asObject(p)?.nodePort === requested);
    const problem =
      requested < this.#ports.first || requested > this.#ports.last
        ? `provided port is not in the valid range. The range of valid ports is ${this.#ports.first}-${this.#ports.last}`
        : usedPorts.has(requested) || own
          ? "provided port is already allocated"
          : undefined;
    if (problem) {
      errs.push(
        field.invalid(
          "spec.healthCheckNodePort",
          requested,
          `failed to allocate requested HealthCheck NodePort ${requested}: ${problem}`,
        ),
      );
      return undefined;
    }
    usedPorts.add(requested);
    return requested;
  }

  #inRange(ip: { family: string; value: bigint }): boolean {
    const { base, size, family } = this.#cidr;
    // The network and broadcast addresses are never handed out.
    return ip.family === family && ip.value > base && ip.value < base + size - 1n;
  }

  #freeIp(used: ReadonlySet<string>): string | undefined {
    const { base, size, family } = this.#cidr;
    // Start at a random offset so concurrent gateways rarely pick the same address.
    const span = size - 2n > 1n << 20n ? 1n << 20n : size - 2n;
    const start = BigInt(Math.floor(Math.random() * Number(span)));
    for (let i = 0n; i < span; i++) {
      const ip = formatIp(family, base + 1n + ((start + i) % span));
      if (!used.has(ip)) return ip;
    }
    return undefined;
  }

  #freePort(used: ReadonlySet<number>): number | undefined {
    const { first, last } = this.#ports;
    const count = last - first + 1;
    const start = Math.floor(Math.random() * count);
    for (let i = 0; i < count; i++) {
      const p = first + ((start + i) % count);
      if (!used.has(p)) return p;
    }
    return undefined;
  }
}
