// The bootstrap signer (upstream's bootstrapsigner controller): keeps one detached JWS of
// cluster-info's kubeconfig per bootstrap token that may sign (`usage-bootstrap-signing: "true"`,
// not expired, name, id and secret consistent) under `jws-kubeconfig-<token-id>`, and drops the
// signatures of every other token. Informers on the ConfigMap and on the token Secrets kick one
// pass over the cached objects; the next expiry (and a periodic look, for moved clocks and missed
// timers) kicks it too, so a token stops vouching when it expires, not only when the cleaner
// deletes its Secret.
import type { Naming } from "../../../backends/naming/index.ts";
import {
  BOOTSTRAP_SECRET_PREFIX,
  bootstrapSecretValue,
  bootstrapTokenExpiration,
} from "../../authentication/index.ts";
import { ApiError, type ControllerClient } from "../client.ts";
import { Informer, type InformerObject } from "../informer.ts";
import { ReconcileLoop } from "../reconcile-loop.ts";
import { CLUSTER_INFO, JWS_KEY_PREFIX, KUBECONFIG_KEY } from "./cluster-info.ts";
import { detachedSignature } from "./jws.ts";

export interface BootstrapSignerOptions {
  /** Longest wait before the signatures are looked at again (default 5 minutes). */
  readonly recheckMs?: number;
  /** Milliseconds since the epoch; tests move the clock. */
  readonly now?: () => number;
}

const enc = encodeURIComponent;
const SECRET_NAME = new RegExp(`^${BOOTSTRAP_SECRET_PREFIX}([a-z0-9]{6})$`);

interface SigningToken {
  readonly id: string;
  readonly secret: string;
  readonly expiresAt?: number;
}

export class BootstrapSigner {
  readonly #client: ControllerClient;
  readonly #naming: Naming;
  readonly #onError: (err: unknown, context: string) => void;
  readonly #now: () => number;
  readonly #recheckMs: number;
  readonly #secrets = new Map<string, InformerObject>();
  #configMap: InformerObject | undefined;
  readonly #secretInformer: Informer;
  readonly #configMapInformer: Informer;
  readonly #loop: ReconcileLoop;
  #expiryTimer: NodeJS.Timeout | undefined;

  constructor(
    client: ControllerClient,
    naming: Naming,
    onError: (err: unknown, context: string) => void,
    options: BootstrapSignerOptions = {},
  ) {
    this.#client = client;
    this.#naming = naming;
    this.#onError = onError;
    this.#now = options.now ?? Date.now;
    this.#recheckMs = options.recheckMs ?? 300_000;
    this.#loop = new ReconcileLoop(() => this.#sign(), this.#recheckMs);
    const type = naming.label("token", "bootstrap");
    this.#secretInformer = new Informer(
      client,
      `/api/v1/namespaces/${enc(naming.systemNamespace)}/secrets?fieldSelector=${enc(`type=${type}`)}`,
      {
        upsert: (secret) => {
          this.#secrets.set(secret.metadata.name, secret);
          this.#loop.kick();
        },
        deleted: (secret) => {
          this.#secrets.delete(secret.metadata.name);
          this.#loop.kick();
        },
      },
      (err) => onError(err, "bootstrap signer secret informer"),
    );
    this.#configMapInformer = new Informer(
      client,
      `/api/v1/namespaces/${enc(naming.publicNamespace)}/configmaps?fieldSelector=${enc(`metadata.name=${CLUSTER_INFO}`)}`,
      {
        upsert: (cm) => {
          this.#configMap = cm;
          this.#loop.kick();
        },
        deleted: () => {
          this.#configMap = undefined;
        },
      },
      (err) => onError(err, "bootstrap signer config map informer"),
    );
  }

  get synced(): boolean {
    return this.#secretInformer.synced && this.#configMapInformer.synced;
  }

  async run(signal: AbortSignal): Promise<void> {
    try {
      await Promise.all([
        this.#secretInformer.run(signal),
        this.#configMapInformer.run(signal),
        this.#loop.run(signal),
      ]);
    } finally {
      clearTimeout(this.#expiryTimer);
    }
  }

  /** The tokens that may sign now, by id; the first Secret of an id wins, as upstream. */
  #signingTokens(now: number): Map<string, SigningToken> {
    const tokens = new Map<string, SigningToken>();
    for (const secret of this.#secrets.values()) {
      const nameId = SECRET_NAME.exec(secret.metadata.name)?.[1];
      const id = bootstrapSecretValue(secret, "token-id");
      const tokenSecret = bootstrapSecretValue(secret, "token-secret");
      if (nameId === undefined || id !== nameId || tokenSecret === "" || tokens.has(id)) continue;
      const expiration = bootstrapTokenExpiration(secret, now);
      if (expiration.expired) continue;
      if (bootstrapSecretValue(secret, "usage-bootstrap-signing") !== "true") continue;
      tokens.set(id, {
        id,
        secret: tokenSecret,
        ...(expiration.expiresAt !== undefined ? { expiresAt: expiration.expiresAt } : {}),
      });
    }
    return tokens;
  }

  /** One pass: false when it should be tried again. */
  async #sign(): Promise<boolean> {
    if (!this.synced) return false; // tried again until both informers have listed
    const now = this.#now();
    const tokens = this.#signingTokens(now);
    this.#armExpiry(tokens, now);
    const cm = this.#configMap;
    const data = cm?.data as Record<string, string> | undefined;
    const content = data?.[KUBECONFIG_KEY];
    if (!cm || !data || content === undefined) return true;
    const next: Record<string, string> = {};
    for (const [key, value] of Object.entries(data)) if (!key.startsWith(JWS_KEY_PREFIX)) next[key] = value;
    for (const token of tokens.values()) {
      next[`${JWS_KEY_PREFIX}${token.id}`] = await detachedSignature(content, token.id, token.secret);
    }
    const changed =
      Object.keys(next).length !== Object.keys(data).length ||
      Object.entries(next).some(([key, value]) => data[key] !== value);
    if (!changed) return true;
    try {
      const reply = await this.#client.call(
        "PUT",
        `/api/v1/namespaces/${enc(this.#naming.publicNamespace)}/configmaps/${enc(CLUSTER_INFO)}`,
        { ...cm, data: next },
      );
      // 409 and 404: the informer brings the newer state (or the deletion) and kicks again.
      if (reply.status >= 300 && reply.status !== 409 && reply.status !== 404) {
        throw new ApiError(reply.status, `updating ${CLUSTER_INFO}: ${reply.status} ${reply.body?.message}`);
      }
      return true;
    } catch (err) {
      this.#onError(err, `bootstrap signer ${CLUSTER_INFO}`);
      return false;
    }
  }

  /** A pass when the first signing token expires (the periodic pass covers longer waits). */
  #armExpiry(tokens: Map<string, SigningToken>, now: number): void {
    clearTimeout(this.#expiryTimer);
    this.#expiryTimer = undefined;
    const first = Math.min(...[...tokens.values()].map((t) => t.expiresAt ?? Number.POSITIVE_INFINITY));
    if (!Number.isFinite(first) || first - now > this.#recheckMs) return;
    this.#expiryTimer = setTimeout(() => this.#loop.kick(), Math.max(first - now, 0) + 1);
    this.#expiryTimer.unref();
  }
}
