// Cluster IPs, node ports and health check node ports for Services: allocated on create (and when
// an update starts to need them), checked when requested, and free again once the Service is gone
// or no longer holds them. What is taken lives in the store (range-record.ts), so every gateway
// over one store sees the same allocations.
import { asArray, asObject, asString, type JsonObject } from "../common/json.ts";
import { AlreadyExistsError, ConflictError, type Storage } from "../contract/index.ts";
import { type FieldError, field } from "../registry/field-error.ts";
import { Bitmap, RangeRecord, RecordMissingError } from "./range-record.ts";

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
  const base = parsed.value - (parsed.value % size);
  // Named by its network, as Go prints a parsed CIDR: replicas given 10.0.0.5/24 and 10.0.0.0/24 agree.
  return { family: parsed.family, base, size, text: `${formatIp(parsed.family, base)}/${prefix}` };
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

/** Where the records live: upstream's keys under its registry prefix. */
export const SERVICE_IP_RECORD = "/ranges/serviceips";
export const NODE_PORT_RECORD = "/ranges/servicenodeports";

/** Upstream's repair interval for both ranges. */
export const DEFAULT_REPAIR_INTERVAL_MS = 3 * 60_000;
/** Passes that must find an item taken by no Service before it is freed, as upstream. */
const LEAK_PASSES = 3;
/** Conflicting writes a repair pass retries before it waits for the next one. */
const REPAIR_ATTEMPTS = 5;

export interface ServiceAllocatorOptions {
  /** Key prefix of the stored Services (`/core/services/`). */
  readonly servicesPrefix?: string;
  /** How often the repair pass runs; 0 runs it only at first use. */
  readonly repairIntervalMs?: number;
  /** Repair findings and releases that failed (the next repair pass frees those). */
  readonly report?: (message: string, err?: unknown) => void;
}

export interface ServiceAllocation {
  readonly causes: FieldError[];
  /** The write is over: stored at `revision`, or nothing stored. */
  settle(revision: number | undefined): Promise<void>;
}

/** What one Service holds: offsets into the address and port records. */
interface Held {
  readonly ips: number[];
  readonly ports: number[];
}

interface StoreState {
  readonly ips: RangeRecord;
  readonly ports: RangeRecord;
  /** Per record: items found taken by no Service, and how many passes in a row found them. */
  readonly leaks: Map<RangeRecord, Map<number, number>>;
  /** The first repair pass has written the records. */
  initialized: boolean;
  initializing: Promise<void> | undefined;
  repairing: Promise<void> | undefined;
}

/** The addresses a Service picks, decided against the address record. */
interface IpPlan {
  readonly errs: FieldError[];
  readonly ips: string[];
  readonly taken: number[];
}

/** The node ports a Service picks, decided against the port record. */
interface PortPlan {
  readonly errs: FieldError[];
  readonly nodePorts: Map<number, number>;
  readonly healthCheck: number | undefined;
  readonly taken: number[];
}

/**
 * Cluster IPs, node ports and health check node ports of Services, kept in two records in the
 * store (one per range) that every gateway over that store shares: taken on create and when an
 * update starts to need them, checked when requested, given back once a write that took them
 * stores nothing, an update drops them, or the Service is deleted. A repair pass (at first use and
 * every `repairIntervalMs`) marks what Services hold that the records miss and frees what no
 * Service has held for three passes, as after a crash between taking and storing.
 */
export class ServiceAllocator {
  readonly #cidr: Cidr;
  readonly #ports: { first: number; last: number };
  readonly #ipCount: number;
  readonly #options: ServiceAllocatorOptions;
  readonly #states = new WeakMap<Storage, StoreState>();
  readonly #timers = new Set<NodeJS.Timeout>();

  constructor(ranges: ServiceRanges = DEFAULT_SERVICE_RANGES, options: ServiceAllocatorOptions = {}) {
    this.#cidr = parseCidr(ranges.clusterIpRange);
    this.#ports = parseNodePortRange(ranges.nodePortRange);
    // The network and last addresses are never handed out; very large ranges are capped.
    const span = this.#cidr.size - 2n;
    this.#ipCount = Number(span > 1n << 20n ? 1n << 20n : span);
    this.#options = options;
  }

  /** The first address after the network's, which upstream gives the API's own Service. */
  get firstIp(): string {
    return formatIp(this.#cidr.family, this.#cidr.base + 1n);
  }

  /** Stops the periodic repair passes. */
  close(): void {
    for (const t of this.#timers) clearInterval(t);
    this.#timers.clear();
  }

  #report(message: string, err?: unknown): void {
    if (this.#options.report) this.#options.report(message, err);
    else process.emitWarning(err ? `${message}: ${String(err)}` : message, "ServiceAllocation");
  }

  #state(storage: Storage): StoreState {
    let state = this.#states.get(storage);
    if (state) return state;
    const ports = this.#ports;
    const created: StoreState = {
      ips: new RangeRecord(storage, SERVICE_IP_RECORD, this.#cidr.text, this.#ipCount),
      ports: new RangeRecord(
        storage,
        NODE_PORT_RECORD,
        `${ports.first}-${ports.last}`,
        ports.last - ports.first + 1,
      ),
      leaks: new Map(),
      initialized: false,
      initializing: undefined,
      repairing: undefined,
    };
    state = created;
    this.#states.set(storage, state);
    // Failures here show again, to the write that waits for the first pass.
    this.#initialize(created, storage).catch(() => {});
    const interval = this.#options.repairIntervalMs ?? DEFAULT_REPAIR_INTERVAL_MS;
    if (interval > 0) {
      const timer = setInterval(() => {
        this.repair(storage).catch((err) => this.#report("service allocation repair failed", err));
      }, interval);
      timer.unref();
      this.#timers.add(timer);
    }
    return state;
  }

  /** The first pass initializes the records (from the stored Services) before anything is taken. */
  #initialize(state: StoreState, storage: Storage): Promise<void> {
    state.initializing ??= this.repair(storage)
      .then(() => {
        state.initialized = true;
      })
      .finally(() => {
        state.initializing = undefined;
      });
    return state.initializing;
  }

  /** Runs `run` on a record once the records are initialized; a record gone missing is rebuilt. */
  async #change<T>(
    storage: Storage,
    pick: (s: StoreState) => RangeRecord,
    run: (bits: Bitmap) => T,
  ): Promise<T> {
    const state = this.#state(storage);
    if (!state.initialized) await this.#initialize(state, storage);
    try {
      return await pick(state).change(run);
    } catch (err) {
      if (!(err instanceof RecordMissingError)) throw err;
      await this.repair(storage);
      return pick(state).change(run);
    }
  }

  /**
   * Fills in clusterIP(s), IP families and node ports of a Service being created or updated and
   * takes them in the store. Returns field errors for requests that cannot be met (nothing is
   * then held), or a settle to call once the write is over.
   */
  async allocate(
    storage: Storage,
    object: JsonObject,
    old: JsonObject | undefined,
  ): Promise<ServiceAllocation> {
    const none: ServiceAllocation = { causes: [], settle: async () => {} };
    // Any Service write starts this store's repair passes, even one that takes nothing.
    this.#state(storage);
    const spec = asObject(object.spec);
    if (!spec) return none;
    const type = asString(spec.type) || "ClusterIP";
    const oldHeld = old ? this.#held(old) : { ips: [], ports: [] };
    const release = async (held: Held) => {
      try {
        await this.#release(storage, held);
      } catch (err) {
        this.#report("could not free a Service's cluster IPs or node ports; the repair pass will", err);
      }
    };
    // The write stored: what the old object held and the new one does not is free again.
    const settleWith = (taken: Held): ServiceAllocation["settle"] => {
      return async (revision) => {
        if (revision === undefined) return release(taken);
        const now = this.#held(object);
        await release({
          ips: oldHeld.ips.filter((i) => !now.ips.includes(i)),
          ports: oldHeld.ports.filter((p) => !now.ports.includes(p)),
        });
      };
    };
    if (type === "ExternalName") {
      delete spec.clusterIP;
      delete spec.clusterIPs;
      return { causes: [], settle: settleWith({ ips: [], ports: [] }) };
    }
    const oldSpec = asObject(old?.spec);
    const ipPlan = await this.#planIps(storage, spec, oldSpec);
    if (ipPlan.errs.length > 0) return { causes: ipPlan.errs, settle: none.settle };
    let portPlan: PortPlan;
    try {
      portPlan = await this.#planPorts(storage, spec, oldSpec, type);
    } catch (err) {
      await release({ ips: ipPlan.taken, ports: [] });
      throw err;
    }
    if (portPlan.errs.length > 0) {
      await release({ ips: ipPlan.taken, ports: [] });
      return { causes: portPlan.errs, settle: none.settle };
    }
    spec.clusterIP = ipPlan.ips[0];
    spec.clusterIPs = ipPlan.ips;
    if (spec.ipFamilies === undefined) spec.ipFamilies = [this.#cidr.family];
    if (spec.ipFamilyPolicy === undefined) spec.ipFamilyPolicy = "SingleStack";
    const ports = asArray(spec.ports);
    for (const [i, port] of portPlan.nodePorts) {
      const p = asObject(ports[i]);
      if (p) p.nodePort = port;
    }
    if (portPlan.healthCheck !== undefined) spec.healthCheckNodePort = portPlan.healthCheck;
    return { causes: [], settle: settleWith({ ips: ipPlan.taken, ports: portPlan.taken }) };
  }

  /** Frees what a deleted Service held, for every gateway over the store. */
  async release(storage: Storage, object: JsonObject): Promise<void> {
    try {
      await this.#release(storage, this.#held(object));
    } catch (err) {
      this.#report("could not free a deleted Service's cluster IPs or node ports; the repair pass will", err);
    }
  }

  async #release(storage: Storage, held: Held): Promise<void> {
    const clear = (items: number[]) => (bits: Bitmap) => {
      for (const i of items) bits.clear(i);
    };
    if (held.ips.length > 0) await this.#change(storage, (s) => s.ips, clear(held.ips));
    if (held.ports.length > 0) await this.#change(storage, (s) => s.ports, clear(held.ports));
  }

  async #planIps(storage: Storage, spec: JsonObject, oldSpec: JsonObject | undefined): Promise<IpPlan> {
    const oldIps = oldSpec ? clusterIps(oldSpec) : [];
    let ips = clusterIps(spec);
    if (ips.length === 0 && oldIps.length > 0 && asString(oldSpec?.type) !== "ExternalName") ips = oldIps;
    const automatic = ips.length === 0 || ips[0] === "";
    const requested =
      !automatic && ips[0] !== HEADLESS && !oldIps.includes(ips[0] as string) ? ips[0] : undefined;
    if (!automatic && requested === undefined) return { errs: [], ips, taken: [] };
    if (requested !== undefined) {
      const offset = this.#ipOffset(requested);
      if (offset === undefined) {
        const why = `the provided IP (${requested}) is not in the valid range. The range of valid IPs is ${this.#cidr.text}`;
        return {
          errs: [field.invalid("spec.clusterIPs", ips, `failed to allocate IP ${requested}: ${why}`)],
          ips,
          taken: [],
        };
      }
      return this.#change(
        storage,
        (s) => s.ips,
        (bits) => {
          if (bits.has(offset)) {
            const msg = `failed to allocate IP ${requested}: provided IP is already allocated`;
            return { errs: [field.invalid("spec.clusterIPs", ips, msg)], ips, taken: [] };
          }
          bits.set(offset);
          return { errs: [], ips, taken: [offset] };
        },
      );
    }
    return this.#change(
      storage,
      (s) => s.ips,
      (bits) => {
        const free = bits.free();
        if (free === undefined) {
          return {
            errs: [field.forbidden("spec.clusterIPs", "failed to allocate a serviceIP: range is full")],
            ips,
            taken: [],
          };
        }
        bits.set(free);
        return {
          errs: [],
          ips: [formatIp(this.#cidr.family, this.#cidr.base + 1n + BigInt(free))],
          taken: [free],
        };
      },
    );
  }

  async #planPorts(
    storage: Storage,
    spec: JsonObject,
    oldSpec: JsonObject | undefined,
    type: string,
  ): Promise<PortPlan> {
    const { first, last } = this.#ports;
    const outside = `provided port is not in the valid range. The range of valid ports is ${first}-${last}`;
    const ports = asArray(spec.ports).map((p) => asObject(p));
    const oldPorts = new Set(
      asArray(oldSpec?.ports)
        .map((p) => asObject(p)?.nodePort)
        .filter((n): n is number => typeof n === "number"),
    );
    const wantsNodePorts = needsNodePorts(type);
    // A load balancer may do without node ports; ports asked for are still honoured.
    const automatic = type === "NodePort" || spec.allocateLoadBalancerNodePorts !== false;
    const localLb = type === "LoadBalancer" && asString(spec.externalTrafficPolicy) === "Local";
    const requestedHealth = typeof spec.healthCheckNodePort === "number" ? spec.healthCheckNodePort : 0;
    const hadHealth =
      asString(oldSpec?.type) === "LoadBalancer" && asString(oldSpec?.externalTrafficPolicy) === "Local";
    const keepsHealth =
      requestedHealth !== 0 && hadHealth && requestedHealth === oldSpec?.healthCheckNodePort;
    const needsWork =
      (wantsNodePorts &&
        ports.some((p) => {
          const n = p?.nodePort;
          return typeof n === "number" && n !== 0 ? !oldPorts.has(n) : automatic && p !== undefined;
        })) ||
      (localLb && !keepsHealth);
    if (!needsWork) return { errs: [], nodePorts: new Map(), healthCheck: undefined, taken: [] };
    return this.#change(
      storage,
      (s) => s.ports,
      (bits) => {
        const errs: FieldError[] = [];
        const taken: number[] = [];
        const nodePorts = new Map<number, number>();
        const used = (port: number) => bits.has(port - first) || taken.includes(port - first);
        if (wantsNodePorts) {
          // Requested ports first, so an automatic pick never takes one a later port asks for.
          ports.forEach((port, i) => {
            const n = port?.nodePort;
            if (typeof n !== "number" || n === 0 || oldPorts.has(n)) return;
            if (n < first || n > last) errs.push(field.invalid(`spec.ports[${i}].nodePort`, n, outside));
            else if (used(n))
              errs.push(field.invalid(`spec.ports[${i}].nodePort`, n, "provided port is already allocated"));
            else taken.push(n - first);
          });
          ports.forEach((port, i) => {
            if (!port || (typeof port.nodePort === "number" && port.nodePort !== 0) || !automatic) return;
            const free = this.#freePort(bits, taken);
            if (free === undefined) {
              errs.push(
                field.forbidden(`spec.ports[${i}].nodePort`, "failed to allocate a nodePort: range is full"),
              );
              return;
            }
            taken.push(free - first);
            nodePorts.set(i, free);
          });
        }
        let healthCheck: number | undefined;
        if (localLb && !keepsHealth) {
          if (requestedHealth === 0) {
            healthCheck = this.#freePort(bits, taken);
            if (healthCheck === undefined) {
              errs.push(
                field.forbidden(
                  "spec.healthCheckNodePort",
                  "failed to allocate a HealthCheck NodePort: range is full",
                ),
              );
            } else taken.push(healthCheck - first);
          } else {
            // The Service's own node ports count as taken too.
            const own = ports.some((p) => p?.nodePort === requestedHealth);
            const problem =
              requestedHealth < first || requestedHealth > last
                ? outside
                : used(requestedHealth) || own
                  ? "provided port is already allocated"
                  : undefined;
            if (problem) {
              const msg = `failed to allocate requested HealthCheck NodePort ${requestedHealth}: ${problem}`;
              errs.push(field.invalid("spec.healthCheckNodePort", requestedHealth, msg));
            } else taken.push(requestedHealth - first);
          }
        }
        // Only a write that goes ahead takes what it picked.
        if (errs.length > 0) return { errs, nodePorts, healthCheck, taken: [] };
        for (const i of taken) bits.set(i);
        return { errs, nodePorts, healthCheck, taken };
      },
    );
  }

  #freePort(bits: Bitmap, taken: readonly number[]): number | undefined {
    const { first, last } = this.#ports;
    const count = last - first + 1;
    const start = Math.floor(Math.random() * count);
    for (let n = 0; n < count; n++) {
      const i = (start + n) % count;
      if (!bits.has(i) && !taken.includes(i)) return first + i;
    }
    return undefined;
  }

  /** An address's place in the address record; undefined when it is not in the range. */
  #ipOffset(text: string): number | undefined {
    const ip = parseIp(text);
    const { base, family } = this.#cidr;
    if (!ip || ip.family !== family) return undefined;
    const offset = ip.value - base - 1n;
    return offset >= 0n && offset < BigInt(this.#ipCount) ? Number(offset) : undefined;
  }

  /** What a stored Service holds in this server's ranges. */
  #held(object: JsonObject): Held {
    const spec = asObject(object.spec) ?? {};
    if (asString(spec.type) === "ExternalName") return { ips: [], ports: [] };
    const ips = clusterIps(spec)
      .map((ip) => this.#ipOffset(ip))
      .filter((i): i is number => i !== undefined);
    const { first, last } = this.#ports;
    const ports = [...asArray(spec.ports).map((p) => asObject(p)?.nodePort), spec.healthCheckNodePort]
      .filter((n): n is number => typeof n === "number" && n >= first && n <= last)
      .map((n) => n - first);
    return { ips: [...new Set(ips)], ports: [...new Set(ports)] };
  }

  /**
   * One repair pass over both records, as upstream's repair controllers: what stored Services
   * hold is marked taken (reported when the record missed it), what no Service holds is kept
   * for three passes in a row and then freed, and a missing record, or one of another range, is
   * written afresh from the Services. Passes of one process run one at a time.
   */
  repair(storage: Storage): Promise<void> {
    const state = this.#state(storage);
    const previous = state.repairing ?? Promise.resolve();
    const run = previous.then(
      () => this.#repairOnce(storage, state),
      () => this.#repairOnce(storage, state),
    );
    state.repairing = run;
    return run;
  }

  async #repairOnce(storage: Storage, state: StoreState): Promise<void> {
    for (const record of [state.ips, state.ports]) {
      for (let attempt = 1; ; attempt++) {
        try {
          await this.#repairRecord(storage, state, record);
          break;
        } catch (err) {
          if (
            !(err instanceof ConflictError || err instanceof AlreadyExistsError) ||
            attempt >= REPAIR_ATTEMPTS
          )
            throw err;
        }
      }
    }
  }

  async #repairRecord(storage: Storage, state: StoreState, record: RangeRecord): Promise<void> {
    const isIps = record === state.ips;
    const what = isIps ? "cluster IP" : "node port";
    const name = (i: number) =>
      isIps ? formatIp(this.#cidr.family, this.#cidr.base + 1n + BigInt(i)) : String(this.#ports.first + i);
    // The record first, then the Services: a Service listed after the read holds nothing the
    // record could not already show.
    const stored = await record.read();
    const sameRange = stored.revision > 0 && stored.storedRange === record.range;
    if (stored.revision > 0 && !sameRange) {
      this.#report(
        `the ${what} allocation record is for the range ${stored.storedRange}, not ${record.range}: rebuilding it from the Services`,
      );
    }
    const listed = await storage.list(this.#options.servicesPrefix ?? "/core/services/");
    const rebuilt = new Bitmap(record.size);
    for (const kv of listed.items) {
      if (kv.unreadable) continue;
      let svc: JsonObject;
      try {
        svc = JSON.parse(kv.value) as JsonObject;
      } catch {
        continue;
      }
      const m = asObject(svc.metadata);
      const who = `${asString(m?.namespace)}/${asString(m?.name)}`;
      const held = this.#held(svc);
      for (const i of isIps ? held.ips : held.ports) {
        if (rebuilt.has(i)) {
          this.#report(
            `the ${what} ${name(i)} of Service ${who} is held by several Services; please recreate`,
          );
          continue;
        }
        rebuilt.set(i);
        if (sameRange && !stored.bits.has(i)) {
          this.#report(`the ${what} ${name(i)} of Service ${who} was not allocated; repairing`);
        }
      }
    }
    const leaks = new Map<number, number>();
    const before = state.leaks.get(record) ?? new Map<number, number>();
    if (sameRange) {
      for (const i of stored.bits.items()) {
        if (rebuilt.has(i)) continue;
        const passes = (before.get(i) ?? 0) + 1;
        if (passes < LEAK_PASSES) {
          // Perhaps taken for a write still under way: kept until later passes agree.
          leaks.set(i, passes);
          rebuilt.set(i);
          if (passes === 1)
            this.#report(`the ${what} ${name(i)} may have leaked: flagging for later clean up`);
        } else {
          this.#report(`the ${what} ${name(i)} appears to have leaked: cleaning up`);
        }
      }
    }
    if (!sameRange || !rebuilt.equals(stored.bits)) {
      await record.write(rebuilt, stored.revision);
    }
    state.leaks.set(record, leaks);
  }
}
