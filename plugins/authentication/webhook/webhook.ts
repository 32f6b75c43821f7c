// Token webhook (SPEC.md, "Strategies"): a bearer token is POSTed as a TokenReview to the
// service named in a kubeconfig-format file, and the review's status decides. Answers are
// cached under a keyed hash of token and audiences (never the token itself); failed calls are
// not cached, so a webhook that comes back is asked again at once.
import { createHmac, randomBytes } from "node:crypto";
import type { Naming } from "../../../backends/naming/index.ts";
import { ApiClient, ExpiringCache, loadKubeconfig } from "../../client/index.ts";
import type { AuthenticationResult, TokenAuthenticator } from "../authenticator.ts";

export interface TokenWebhookOptions {
  /** `--authentication-token-webhook-config-file`: cluster = the webhook, user = our credentials. */
  readonly configFile: string;
  readonly naming: Naming;
  /** `--authentication-token-webhook-version`; default v1beta1. */
  readonly version?: "v1beta1" | "v1";
  /** `--authentication-token-webhook-cache-ttl` in milliseconds; default 2 minutes. */
  readonly cacheTtlMs?: number;
  /** Longest wait for the webhook's answer; default 10 s. */
  readonly timeoutMs?: number;
  /**
   * The server's own audiences (`--api-audiences`): what a review that names no
   * `status.audiences` is taken to be valid for.
   */
  readonly implicitAudiences?: readonly string[];
  readonly now?: () => number;
}

export interface TokenWebhookAuthenticator extends TokenAuthenticator {
  close(): Promise<void>;
}

/** Most answers kept at once. */
const CACHE_ENTRIES = 4096;
/** Most bytes accepted in an answer. */
const MAX_ANSWER = 1 << 20;
const GENERIC_REJECTION = "token not authenticated by the webhook";

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isStringList(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((s) => typeof s === "string");
}

export function tokenWebhookAuthenticator(options: TokenWebhookOptions): TokenWebhookAuthenticator {
  const client = new ApiClient(loadKubeconfig(options.configFile), { naming: options.naming });
  const apiVersion = `${options.naming.group("authentication")}/${options.version ?? "v1beta1"}`;
  const ttl = options.cacheTtlMs ?? 120_000;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const implicit = options.implicitAudiences ?? [];
  const cache = new ExpiringCache<AuthenticationResult>(CACHE_ENTRIES, options.now);
  const inFlight = new Map<string, Promise<AuthenticationResult>>();
  // Keyed with a per-process secret, so a cache key cannot be tested against guessed tokens.
  const hmacKey = randomBytes(32);

  async function review(
    token: string,
    audiences: readonly string[],
  ): Promise<{
    result: AuthenticationResult;
    cacheable: boolean;
  }> {
    const body = {
      apiVersion,
      kind: "TokenReview",
      metadata: { creationTimestamp: null },
      spec: { token, ...(audiences.length > 0 ? { audiences } : {}) },
      status: { user: {} },
    };
    let reply: Awaited<ReturnType<ApiClient["request"]>>;
    try {
      reply = await client.request("POST", "", { body, timeoutMs, maxBodyBytes: MAX_ANSWER });
    } catch (err) {
      return { result: rejected(`webhook call failed: ${(err as Error).message}`), cacheable: false };
    }
    if (reply.status < 200 || reply.status > 299)
      return { result: rejected(`webhook answered HTTP ${reply.status}`), cacheable: false };
    const answer = reply.body;
    if (!isObject(answer) || answer.kind !== "TokenReview")
      return { result: rejected("webhook did not answer with a TokenReview"), cacheable: false };
    if (answer.apiVersion !== apiVersion)
      return {
        result: rejected(`webhook answered with ${String(answer.apiVersion)}, expected ${apiVersion}`),
        cacheable: false,
      };
    const status = answer.status ?? {};
    if (!isObject(status))
      return { result: rejected("webhook answer has a malformed status"), cacheable: false };

    let granted: string[] | undefined;
    if (audiences.length > 0) {
      const named = status.audiences;
      if (named !== undefined && named !== null && !isStringList(named))
        return { result: rejected("webhook answer has malformed status.audiences"), cacheable: false };
      const valid = named && named.length > 0 ? named : implicit;
      granted = audiences.filter((a) => valid.includes(a));
      if (granted.length === 0) return { result: rejected("token audiences are invalid"), cacheable: true };
    }
    if (status.authenticated !== true) {
      const error = typeof status.error === "string" && status.error !== "" ? status.error : undefined;
      // A review with an error is an error answer, which is not kept (as upstream does).
      return { result: rejected(error ?? GENERIC_REJECTION), cacheable: error === undefined };
    }
    const user = status.user ?? {};
    if (!isObject(user))
      return { result: rejected("webhook answer has a malformed status.user"), cacheable: false };
    const { username, uid, groups, extra } = user;
    if (typeof username !== "string" || username === "")
      return { result: rejected("webhook authenticated a user without a username"), cacheable: false };
    if (uid !== undefined && uid !== null && typeof uid !== "string")
      return { result: rejected("webhook answer has a malformed status.user.uid"), cacheable: false };
    if (groups !== undefined && groups !== null && !isStringList(groups))
      return { result: rejected("webhook answer has malformed status.user.groups"), cacheable: false };
    const extras: Record<string, string[]> = {};
    if (extra !== undefined && extra !== null) {
      if (!isObject(extra) || !Object.values(extra).every((v) => v === null || isStringList(v)))
        return { result: rejected("webhook answer has malformed status.user.extra"), cacheable: false };
      for (const [k, v] of Object.entries(extra)) extras[k] = (v as string[] | null) ?? [];
    }
    return {
      result: {
        kind: "user",
        user: { username, uid: uid ?? "", groups: groups ?? [], extra: extras },
        ...(granted ? { audiences: granted } : {}),
      },
      cacheable: true,
    };
  }

  return {
    name: "webhook",
    authenticateToken(token, audiences) {
      if (typeof token !== "string" || token === "") return { kind: "none" };
      const key = createHmac("sha256", hmacKey)
        .update(JSON.stringify([audiences, token]))
        .digest("base64");
      const cached = cache.get(key);
      if (cached) return cached;
      // Concurrent requests with the same token wait for one review.
      let pending = inFlight.get(key);
      if (!pending) {
        pending = review(token, audiences)
          .then(({ result, cacheable }) => {
            if (cacheable) cache.set(key, result, ttl);
            return result;
          })
          .catch((err: unknown) => rejected(`webhook call failed: ${(err as Error).message}`))
          .finally(() => inFlight.delete(key));
        inFlight.set(key, pending);
      }
      return pending;
    },
    close: () => client.close(),
  };
}

function rejected(reason: string): AuthenticationResult {
  return { kind: "rejected", reason };
}
