// The cleaning controller (upstream's csrcleaner): every period, deletes requests that are done
// with: approved, denied or failed and unchanged for an hour (by the condition's lastUpdateTime),
// pending for a day (by creationTimestamp), or whose issued certificate has expired.
import { X509Certificate } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import type { Naming } from "../../../backends/naming/index.ts";
import type { ControllerClient } from "../client.ts";
import { type Csr, hasCondition } from "./rules.ts";

export interface CsrCleanerOptions {
  /** Milliseconds since the epoch; tests move the clock. */
  readonly now?: () => number;
  /** How often requests are looked at (upstream: one hour). */
  readonly periodMs?: number;
}

const HOUR_MS = 3_600_000;
const DONE_MS = HOUR_MS;
const PENDING_MS = 24 * HOUR_MS;
const enc = encodeURIComponent;

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

function certificateExpired(csr: Csr, now: number): boolean {
  const pem = Buffer.from(csr.status?.certificate ?? "", "base64").toString("latin1");
  for (const block of pem.match(PEM_CERTIFICATE) ?? []) {
    try {
      if (Date.parse(new X509Certificate(block).validTo) < now) return true;
    } catch {}
  }
  return false;
}

function conditionOlder(csr: Csr, type: string, now: number): boolean {
  const c = (csr.status?.conditions ?? []).find((x) => x.type === type && x.status === "True");
  const at = Date.parse(c?.lastUpdateTime ?? "");
  return Number.isFinite(at) && now - at > DONE_MS;
}

/** Why the request goes now, or undefined while it stays. */
export function csrExpiry(csr: Csr, now: number): string | undefined {
  if (certificateExpired(csr, now)) return "its issued certificate has expired";
  const approved = hasCondition(csr, "Approved");
  const denied = hasCondition(csr, "Denied");
  if (!approved && !denied) {
    const created = Date.parse(csr.metadata.creationTimestamp ?? "");
    if (Number.isFinite(created) && now - created > PENDING_MS) return "pending for more than 24 hours";
  }
  if (denied && conditionOlder(csr, "Denied", now)) return "denied more than an hour ago";
  if (hasCondition(csr, "Failed") && conditionOlder(csr, "Failed", now))
    return "failed more than an hour ago";
  if (approved && conditionOlder(csr, "Approved", now)) return "approved more than an hour ago";
  return undefined;
}

export class CsrCleaner {
  readonly #client: ControllerClient;
  readonly #base: string;
  readonly #onError: (err: unknown, context: string) => void;
  readonly #now: () => number;
  readonly #periodMs: number;
  #synced = false;

  constructor(
    client: ControllerClient,
    naming: Naming,
    onError: (err: unknown, context: string) => void,
    options: CsrCleanerOptions = {},
  ) {
    this.#client = client;
    this.#base = `/apis/${naming.group("certificates")}/v1/certificatesigningrequests`;
    this.#onError = onError;
    this.#now = options.now ?? Date.now;
    this.#periodMs = options.periodMs ?? HOUR_MS;
  }

  /** True once a pass has completed. */
  get synced(): boolean {
    return this.#synced;
  }

  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        await this.pass();
        this.#synced = true;
      } catch (err) {
        if (!signal.aborted) this.#onError(err, "certificatesigningrequest cleaner");
      }
      await delay(this.#periodMs, undefined, { signal }).catch(() => {});
    }
  }

  /** One look at every request; deletes the expired ones (each only as it was seen). */
  async pass(): Promise<void> {
    const list = await this.#client.must("GET", this.#base);
    const now = this.#now();
    for (const csr of (list.body.items ?? []) as Csr[]) {
      if (csrExpiry(csr, now) === undefined) continue;
      const reply = await this.#client.call("DELETE", `${this.#base}/${enc(csr.metadata.name)}`, {
        kind: "DeleteOptions",
        apiVersion: "v1",
        preconditions: { uid: csr.metadata.uid, resourceVersion: csr.metadata.resourceVersion },
      });
      // 404: gone already; 409: changed since the list, looked at again next pass.
      if (reply.status >= 300 && reply.status !== 404 && reply.status !== 409)
        this.#onError(
          new Error(`deleting ${csr.metadata.name}: ${reply.status}`),
          "certificatesigningrequest cleaner",
        );
    }
  }
}
