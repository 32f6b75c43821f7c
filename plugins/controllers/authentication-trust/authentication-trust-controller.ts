// Publishes how the gateway authenticates callers in the `extension-apiserver-authentication`
// ConfigMap of the system namespace, where extension API servers read which CAs to trust for
// client certificates and for the gateway's front-proxy requests (upstream's
// clusterauthenticationtrust controller, same keys and value formats). Restored when deleted or
// changed, and re-checked every minute so certificates drop out as they expire.
//
// Upstream merges its settings with what the ConfigMap already holds, because every
// kube-apiserver of a cluster writes there. Here one gateway writes it, so the ConfigMap holds
// exactly the gateway's current settings: a merge would keep trusting a CA or proxy name the
// operator removed (or one someone slipped in by editing the ConfigMap) until it expired.
import { X509Certificate } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import type { ControllerClient } from "../client.ts";
import { Informer } from "../informer.ts";

export const AUTHENTICATION_CONFIG_MAP = "extension-apiserver-authentication";

export interface RequestHeaderTrust {
  readonly caPem: string;
  readonly allowedNames: readonly string[];
  readonly usernameHeaders: readonly string[];
  readonly groupHeaders: readonly string[];
  readonly extraHeaderPrefixes: readonly string[];
}

export interface AuthenticationTrust {
  /** The CA bundle client certificates are verified against (`--client-ca-file`). */
  readonly clientCaPem: string;
  /** The authenticating-proxy settings, when that authenticator is on (`--requestheader-*`). */
  readonly requestHeader?: RequestHeaderTrust;
}

/** Upstream's slack for certificates that just expired. */
const EXPIRY_SLACK_MS = 5 * 60_000;
const RESYNC_MS = 60_000;
const RETRY_MS = 1_000;

/** The bundle's certificates that have not expired, without repeats, as PEM (empty: none left). */
export function currentCertificates(pem: string, now: Date): string {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  const kept: X509Certificate[] = [];
  for (const block of blocks) {
    const cert = new X509Certificate(block);
    if (cert.validToDate.getTime() <= now.getTime() - EXPIRY_SLACK_MS) continue;
    if (!kept.some((k) => k.raw.equals(cert.raw))) kept.push(cert);
  }
  return kept.map((c) => c.toString()).join("");
}

/** The ConfigMap's data: CA bundles as PEM, header lists as JSON arrays of strings. */
export function authenticationData(trust: AuthenticationTrust, now = new Date()): Record<string, string> {
  const data: Record<string, string> = {};
  const clientCa = currentCertificates(trust.clientCaPem, now);
  if (clientCa) data["client-ca-file"] = clientCa;
  const rh = trust.requestHeader;
  // As upstream, the request-header keys go only with a request-header CA to check proxies by.
  const proxyCa = rh ? currentCertificates(rh.caPem, now) : "";
  if (rh && proxyCa) {
    data["requestheader-username-headers"] = JSON.stringify(rh.usernameHeaders);
    data["requestheader-group-headers"] = JSON.stringify(rh.groupHeaders);
    data["requestheader-extra-headers-prefix"] = JSON.stringify(rh.extraHeaderPrefixes);
    data["requestheader-client-ca-file"] = proxyCa;
    data["requestheader-allowed-names"] = JSON.stringify(rh.allowedNames);
  }
  return data;
}

function sameData(a: Record<string, string>, b: unknown): boolean {
  if (typeof b !== "object" || b === null) return Object.keys(a).length === 0;
  const other = b as Record<string, unknown>;
  const keys = Object.keys(a);
  return keys.length === Object.keys(other).length && keys.every((k) => other[k] === a[k]);
}

export class AuthenticationTrustController {
  readonly #client: ControllerClient;
  readonly #path: string;
  readonly #trust: AuthenticationTrust;
  readonly #resyncMs: number;
  readonly #now: () => Date;
  readonly #onError: (err: unknown, context: string) => void;
  readonly #informer: Informer;
  #published = false;
  #dirty = false;
  #draining: Promise<void> | undefined;
  #signal: AbortSignal | undefined;

  constructor(
    client: ControllerClient,
    options: {
      readonly namespace: string;
      readonly trust: AuthenticationTrust;
      readonly resyncMs?: number;
      readonly now?: () => Date;
    },
    onError: (err: unknown, context: string) => void,
  ) {
    this.#client = client;
    this.#path = `/api/v1/namespaces/${encodeURIComponent(options.namespace)}/configmaps`;
    this.#trust = options.trust;
    this.#resyncMs = options.resyncMs ?? RESYNC_MS;
    this.#now = options.now ?? (() => new Date());
    this.#onError = onError;
    this.#informer = new Informer(
      client,
      `${this.#path}?fieldSelector=${encodeURIComponent(`metadata.name=${AUTHENTICATION_CONFIG_MAP}`)}`,
      {
        upsert: (cm) => {
          if (!sameData(authenticationData(this.#trust, this.#now()), cm.data)) this.#kick();
        },
        deleted: () => this.#kick(),
      },
      (err) => onError(err, "authentication config map informer"),
    );
  }

  /** Synced once the ConfigMap has been published (or found right) the first time. */
  get synced(): boolean {
    return this.#informer.synced && this.#published;
  }

  async run(signal: AbortSignal): Promise<void> {
    this.#signal = signal;
    const resync = (async () => {
      while (!signal.aborted) {
        this.#kick();
        await delay(this.#resyncMs, undefined, { signal }).catch(() => {});
      }
    })();
    await Promise.all([this.#informer.run(signal), resync]);
    await this.#draining;
  }

  /** Starts a pass unless one runs; a change that lands during a pass starts another. */
  #kick(): void {
    this.#dirty = true;
    if (this.#draining) return;
    this.#draining = this.#drain().finally(() => {
      this.#draining = undefined;
      if (this.#dirty && !this.#signal?.aborted) this.#kick();
    });
  }

  async #drain(): Promise<void> {
    const signal = this.#signal;
    while (this.#dirty && !signal?.aborted) {
      this.#dirty = false;
      if (await this.#sync()) continue;
      this.#dirty = true;
      await delay(RETRY_MS, undefined, { signal }).catch(() => {});
    }
  }

  /** One read-compare-write; false when it has to be tried again. */
  async #sync(): Promise<boolean> {
    const itemPath = `${this.#path}/${AUTHENTICATION_CONFIG_MAP}`;
    try {
      const data = authenticationData(this.#trust, this.#now());
      const current = await this.#client.call("GET", itemPath);
      if (current.status !== 200 && current.status !== 404)
        throw new Error(
          `reading ${AUTHENTICATION_CONFIG_MAP}: ${current.status} ${JSON.stringify(current.body)}`,
        );
      if (current.status === 200 && sameData(data, current.body?.data)) {
        this.#published = true;
        return true;
      }
      // Only `data` is ours: labels, annotations and binaryData others set are kept, as upstream.
      const reply =
        current.status === 200
          ? await this.#client.call("PUT", itemPath, { ...current.body, data })
          : await this.#client.call("POST", this.#path, {
              apiVersion: "v1",
              kind: "ConfigMap",
              metadata: { name: AUTHENTICATION_CONFIG_MAP },
              data,
            });
      if (reply.status < 300) {
        this.#published = true;
        return true;
      }
      // 409 and 404: changed or deleted meanwhile; the next pass reads it again.
      if (reply.status !== 409 && reply.status !== 404)
        throw new Error(
          `writing ${AUTHENTICATION_CONFIG_MAP}: ${reply.status} ${JSON.stringify(reply.body)}`,
        );
    } catch (err) {
      this.#onError(err, `${AUTHENTICATION_CONFIG_MAP} config map`);
    }
    return false;
  }
}
