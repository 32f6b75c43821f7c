// Leader election over a coordination/v1 Lease, as client-go's leaderelection with a LeaseLock:
// a candidate takes the Lease when it is free or when its record has not changed for the record's
// lease duration as *this* process observed it (remote clocks are never compared with ours); the
// leader renews every retry period and gives up (aborting its term's signal) once it has not
// renewed for the renew deadline, which is shorter than the lease duration, so a partitioned
// leader stops before anyone may take over. Every write is a compare-and-swap on resourceVersion.
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { setTimeout as delay } from "node:timers/promises";
import type { ControllerClient } from "../client.ts";

export interface LeaderElectorOptions {
  readonly client: ControllerClient;
  /** `coordination.<domain>` */
  readonly group: string;
  readonly namespace: string;
  readonly name: string;
  /** Default `<hostname>_<uuid>`, as upstream's controller manager. */
  readonly identity?: string;
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
  /** Called whenever this candidate starts or stops leading. */
  readonly onLeading?: (leading: boolean) => void;
  readonly onError: (err: unknown, context: string) => void;
}

/** What a Lease's spec says about its holder (client-go's LeaderElectionRecord). */
export interface LeaseRecord {
  readonly holderIdentity: string;
  readonly leaseDurationSeconds: number;
  readonly acquireTime?: string;
  readonly renewTime?: string;
  readonly leaseTransitions: number;
}

/**
 * Candidates poll a held Lease at most a retry period apart, spread over its last fifth so they do
 * not poll in step. (client-go waits up to 1.2 extra periods instead, so a successor could see
 * a dead leader's last renewal up to 2.2 periods late, and try again as late after expiry.)
 */
const POLL_SPREAD = 0.2;

/** metav1.MicroTime's wire form: RFC 3339 with microseconds. */
export function microTime(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

export function defaultIdentity(): string {
  return `${hostname()}_${randomUUID()}`;
}

/** A monotonic clock: observed times must not jump with the wall clock. */
const monotonic = () => performance.now();

function readRecord(spec: unknown): LeaseRecord {
  const s = (typeof spec === "object" && spec !== null ? spec : {}) as Record<string, unknown>;
  const int = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);
  return {
    holderIdentity: typeof s.holderIdentity === "string" ? s.holderIdentity : "",
    leaseDurationSeconds: int(s.leaseDurationSeconds),
    ...(typeof s.acquireTime === "string" ? { acquireTime: s.acquireTime } : {}),
    ...(typeof s.renewTime === "string" ? { renewTime: s.renewTime } : {}),
    leaseTransitions: int(s.leaseTransitions),
  };
}

export class LeaderElector {
  readonly identity: string;
  readonly #o: LeaderElectorOptions;
  readonly #path: string;
  #observed: LeaseRecord | undefined;
  #observedJson = "";
  /** Monotonic time the observed record last changed. */
  #observedAt = 0;
  /** Monotonic start of the last attempt that won or renewed the Lease. */
  #lastWonAt = 0;
  /** Monotonic time the Lease was first found missing after another candidate held it. */
  #absentSince: number | undefined;
  #leading = false;

  constructor(options: LeaderElectorOptions) {
    this.#o = options;
    this.identity = options.identity ?? defaultIdentity();
    this.#path = `/apis/${options.group}/v1/namespaces/${encodeURIComponent(options.namespace)}/leases`;
  }

  get leading(): boolean {
    return this.#leading;
  }

  /**
   * True while this candidate leads or has seen another holder's Lease: it knows who leads. A
   * released or missing Lease, or one it could not read, leaves that open.
   */
  get decided(): boolean {
    const holder = this.#observed?.holderIdentity ?? "";
    return this.#leading || (holder !== "" && holder !== this.identity);
  }

  /** The holder as last observed (empty: nobody). */
  get holder(): string {
    return this.#observed?.holderIdentity ?? "";
  }

  /**
   * Competes for the Lease until `signal` aborts; each time this candidate wins, `lead` runs with a
   * signal that aborts when leadership is lost, and is awaited before competing again. On abort
   * the Lease is given up (client-go's ReleaseOnCancel) after `lead` has returned, so a clean
   * restart does not make the next leader wait out the lease.
   */
  async run(signal: AbortSignal, lead: (term: AbortSignal) => Promise<void>): Promise<void> {
    while (!signal.aborted) {
      if (!(await this.#acquire(signal))) break;
      const term = new AbortController();
      this.#setLeading(true);
      const work = lead(term.signal).catch((err: unknown) => this.#o.onError(err, "leading"));
      await this.#renew(signal);
      this.#setLeading(false);
      term.abort();
      await work;
    }
    await this.#release();
  }

  #setLeading(leading: boolean): void {
    if (this.#leading === leading) return;
    this.#leading = leading;
    this.#o.onLeading?.(leading);
  }

  /** Tries at once, then every retry period until it holds the Lease; false on abort. */
  async #acquire(signal: AbortSignal): Promise<boolean> {
    for (;;) {
      if (signal.aborted) return false;
      if (await this.#attempt(this.#o.renewDeadlineMs)) return true;
      await delay(this.#acquireWaitMs(), undefined, { signal }).catch(() => {});
    }
  }

  /**
   * Until the next attempt: a retry period, or less when the observed record runs out sooner.
   * Seen at most a period after each renewal and tried as it runs out, a dead leader's Lease is
   * taken within lease duration + retry period of its last renewal.
   */
  #acquireWaitMs(): number {
    const poll = this.#o.retryPeriodMs * (1 - Math.random() * POLL_SPREAD);
    const last = this.#observed;
    if (!last || last.holderIdentity === this.identity) return poll;
    const left = (this.#absentSince ?? this.#observedAt) + this.#waitMs(last) - monotonic();
    return left > 0 ? Math.min(poll, left + 1) : poll;
  }

  /** Renews every retry period; returns when a renewal missed the deadline or on abort. */
  async #renew(signal: AbortSignal): Promise<void> {
    // Counted from the start of the last request that renewed: whoever observed that renewal
    // observed it no earlier, so stopping within the renew deadline beats their lease duration.
    let renewedAt = this.#lastWonAt;
    while (!signal.aborted) {
      await delay(this.#o.retryPeriodMs, undefined, { signal }).catch(() => {});
      if (signal.aborted) return;
      for (;;) {
        const left = renewedAt + this.#o.renewDeadlineMs - monotonic();
        if (left <= 0) {
          this.#o.onError(
            new Error(`failed to renew the lease within ${this.#o.renewDeadlineMs} ms`),
            "lease",
          );
          return;
        }
        if (await this.#attempt(left)) {
          renewedAt = this.#lastWonAt;
          break;
        }
        await delay(
          Math.min(this.#o.retryPeriodMs, Math.max(0, renewedAt + this.#o.renewDeadlineMs - monotonic())),
          undefined,
          { signal },
        ).catch(() => {});
        if (signal.aborted) return;
      }
    }
  }

  /** client-go's tryAcquireOrRenew: true when this candidate holds the Lease afterwards. */
  async #attempt(timeoutMs: number): Promise<boolean> {
    const startedAt = monotonic();
    try {
      const won = await withTimeout(this.#tryAcquireOrRenew(), timeoutMs);
      if (won) this.#lastWonAt = startedAt;
      return won;
    } catch (err) {
      this.#o.onError(err, "lease");
      return false;
    }
  }

  async #tryAcquireOrRenew(): Promise<boolean> {
    const now = new Date();
    const mine = (previous?: LeaseRecord): LeaseRecord => {
      const renewing = previous?.holderIdentity === this.identity;
      return {
        holderIdentity: this.identity,
        leaseDurationSeconds: Math.ceil(this.#o.leaseDurationMs / 1000),
        acquireTime: renewing && previous?.acquireTime ? previous.acquireTime : microTime(now),
        renewTime: microTime(now),
        leaseTransitions: previous
          ? renewing
            ? previous.leaseTransitions
            : previous.leaseTransitions + 1
          : 0,
      };
    };
    const name = encodeURIComponent(this.#o.name);
    const current = await this.#o.client.call("GET", `${this.#path}/${name}`);
    if (current.status === 404) {
      // Deleted while another held it: that holder may still be acting, so its absence is waited
      // out like an expiry. A candidate that never saw a holder (a fresh store) creates at once.
      const last = this.#observed;
      if (last && last.holderIdentity !== "" && last.holderIdentity !== this.identity) {
        this.#absentSince ??= monotonic();
        if (this.#absentSince + this.#waitMs(last) > monotonic()) return false;
      }
      const record = mine(last);
      const created = await this.#o.client.call("POST", this.#path, this.#lease(record));
      if (created.status === 409) return false;
      if (created.status >= 300)
        throw new Error(`creating the lease: ${created.status} ${message(created.body)}`);
      this.#observe(record);
      return true;
    }
    if (current.status >= 300)
      throw new Error(`reading the lease: ${current.status} ${message(current.body)}`);
    const body = current.body as { metadata?: { resourceVersion?: string }; spec?: unknown };
    const record = readRecord(body.spec);
    this.#observe(record);
    if (record.holderIdentity !== this.identity && this.#observedAt + this.#waitMs(record) > monotonic())
      return false;
    const next = mine(record);
    const updated = await this.#o.client.call(
      "PUT",
      `${this.#path}/${name}`,
      this.#lease(next, body.metadata?.resourceVersion ?? ""),
    );
    if (updated.status === 409 || updated.status === 404) return false;
    if (updated.status >= 300)
      throw new Error(`updating the lease: ${updated.status} ${message(updated.body)}`);
    this.#observe(next);
    return true;
  }

  /**
   * How long a record must stay unchanged before another candidate takes it. A released record
   * (no holder) says 1 s. A held one waits at least this candidate's own lease duration too: a
   * record edited to a shorter duration must not let anyone in before the leader has stopped.
   */
  #waitMs(record: LeaseRecord): number {
    const own = record.holderIdentity === "" ? 0 : this.#o.leaseDurationMs;
    return Math.max(record.leaseDurationSeconds * 1000, own);
  }

  /** Gives the Lease up if this candidate still holds it: no holder, so the next may take it at once. */
  async #release(): Promise<void> {
    if (this.#observed?.holderIdentity !== this.identity) return;
    try {
      const name = encodeURIComponent(this.#o.name);
      // Bounded by a retry period each, so a stop with the store gone is not held up long.
      const current = await withTimeout(
        this.#o.client.call("GET", `${this.#path}/${name}`),
        this.#o.retryPeriodMs,
      );
      if (current.status !== 200) return;
      const body = current.body as { metadata?: { resourceVersion?: string }; spec?: unknown };
      const record = readRecord(body.spec);
      if (record.holderIdentity !== this.identity) return;
      const now = microTime(new Date());
      const released: LeaseRecord = {
        holderIdentity: "",
        leaseDurationSeconds: 1,
        acquireTime: now,
        renewTime: now,
        leaseTransitions: record.leaseTransitions,
      };
      const reply = await withTimeout(
        this.#o.client.call(
          "PUT",
          `${this.#path}/${name}`,
          this.#lease(released, body.metadata?.resourceVersion ?? ""),
        ),
        this.#o.retryPeriodMs,
      );
      if (reply.status === 200) this.#observe(released);
    } catch (err) {
      this.#o.onError(err, "releasing the lease");
    }
  }

  #observe(record: LeaseRecord): void {
    const json = JSON.stringify(record);
    if (json === this.#observedJson) return;
    this.#observed = record;
    this.#observedJson = json;
    this.#absentSince = undefined;
    this.#observedAt = monotonic();
  }

  #lease(record: LeaseRecord, resourceVersion?: string): Record<string, unknown> {
    return {
      apiVersion: `${this.#o.group}/v1`,
      kind: "Lease",
      metadata: {
        name: this.#o.name,
        namespace: this.#o.namespace,
        ...(resourceVersion ? { resourceVersion } : {}),
      },
      spec: record,
    };
  }
}

/** A Status's message, or the answer as it came. */
function message(body: unknown): string {
  const m = (body as { message?: unknown } | null)?.message;
  return typeof m === "string" ? m : JSON.stringify(body);
}

/** A request that has not answered within `ms` counts as failed (it may still land later). */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${Math.round(ms)} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
