// Webhook authorization (`--authorization-mode=Webhook`): each decision is a SubjectAccessReview
// POSTed to the service named in a kubeconfig-format file. Allowed answers are kept for the
// authorized TTL, the others for the unauthorized TTL; a call that fails has no opinion (so the
// next authorizer decides) and is not kept.
import type { Naming } from "../../../backends/naming/index.ts";
import type { UserInfo } from "../../../gateway/pipeline/index.ts";
import { ApiClient, ExpiringCache, loadKubeconfig } from "../../client/index.ts";
import type { Attributes, AuthorizationResult, Authorizer, RulesResult } from "../authorizer.ts";

export interface WebhookAuthorizerOptions {
  /** `--authorization-webhook-config-file`: cluster = the webhook, user = our credentials. */
  readonly configFile: string;
  readonly naming: Naming;
  /** `--authorization-webhook-version`; default v1beta1. */
  readonly version?: "v1beta1" | "v1";
  /** `--authorization-webhook-cache-authorized-ttl` in milliseconds; default 5 minutes. */
  readonly authorizedTtlMs?: number;
  /** `--authorization-webhook-cache-unauthorized-ttl` in milliseconds; default 30 s. */
  readonly unauthorizedTtlMs?: number;
  /** Longest wait for the webhook's answer; default 10 s. */
  readonly timeoutMs?: number;
  readonly now?: () => number;
}

export interface WebhookAuthorizer extends Authorizer {
  close(): Promise<void>;
}

/** Upstream's cap on how many answers are kept. */
const CACHE_ENTRIES = 8192;
/** Requests whose own attributes are this long are not cached (they could flood the cache). */
const MAX_CACHED_ATTRIBUTES = 10_000;
const MAX_ANSWER = 1 << 20;

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The review's spec, with empty fields left out as upstream's encoding does. */
function reviewSpec(a: Attributes, version: "v1beta1" | "v1"): Json {
  const omitEmpty = (o: Record<string, string>) =>
    Object.fromEntries(Object.entries(o).filter(([, v]) => v !== ""));
  const u: UserInfo = a.user;
  const extraKeys = Object.keys(u.extra).sort();
  return {
    ...(a.isResourceRequest
      ? {
          resourceAttributes: omitEmpty({
            namespace: a.namespace,
            verb: a.verb,
            group: a.apiGroup,
            version: a.apiVersion,
            resource: a.resource,
            subresource: a.subresource,
            name: a.name,
          }),
        }
      : { nonResourceAttributes: omitEmpty({ path: a.path, verb: a.verb }) }),
    ...(u.username ? { user: u.username } : {}),
    // v1beta1 spells the list of groups `group`; v1 spells it `groups`.
    ...(u.groups.length > 0 ? { [version === "v1" ? "groups" : "group"]: [...u.groups] } : {}),
    ...(extraKeys.length > 0
      ? { extra: Object.fromEntries(extraKeys.map((k) => [k, [...(u.extra[k] ?? [])]])) }
      : {}),
    ...(u.uid ? { uid: u.uid } : {}),
  };
}

function attributesSize(a: Attributes): number {
  return (
    a.namespace.length +
    a.verb.length +
    a.apiGroup.length +
    a.apiVersion.length +
    a.resource.length +
    a.subresource.length +
    a.name.length +
    a.path.length
  );
}

export function webhookAuthorizer(options: WebhookAuthorizerOptions): WebhookAuthorizer {
  const client = new ApiClient(loadKubeconfig(options.configFile), { naming: options.naming });
  const version = options.version ?? "v1beta1";
  const group = options.naming.group("authorization");
  const apiVersion = `${group}/${version}`;
  const authorizedTtl = options.authorizedTtlMs ?? 300_000;
  const unauthorizedTtl = options.unauthorizedTtlMs ?? 30_000;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const cache = new ExpiringCache<AuthorizationResult>(CACHE_ENTRIES, options.now);

  const failed = (why: string): AuthorizationResult => ({
    decision: "noOpinion",
    reason: `webhook authorizer: ${why}`,
  });

  async function review(
    spec: Json,
  ): Promise<{ result: AuthorizationResult; allowed: boolean } | AuthorizationResult> {
    const body = {
      apiVersion,
      kind: "SubjectAccessReview",
      metadata: { creationTimestamp: null },
      spec,
      status: { allowed: false },
    };
    let reply: Awaited<ReturnType<ApiClient["request"]>>;
    try {
      reply = await client.request("POST", "", { body, timeoutMs, maxBodyBytes: MAX_ANSWER });
    } catch (err) {
      return failed(`call failed: ${(err as Error).message}`);
    }
    if (reply.status < 200 || reply.status > 299) return failed(`webhook answered HTTP ${reply.status}`);
    const answer = reply.body;
    if (!isObject(answer)) return failed("webhook did not answer with a SubjectAccessReview");
    if (answer.kind !== undefined && answer.kind !== "SubjectAccessReview")
      return failed(`webhook answered with kind ${JSON.stringify(answer.kind)}`);
    if (
      answer.apiVersion !== undefined &&
      answer.apiVersion !== `${group}/v1` &&
      answer.apiVersion !== `${group}/v1beta1`
    )
      return failed(`webhook answered with apiVersion ${JSON.stringify(answer.apiVersion)}`);
    const status = answer.status ?? {};
    if (!isObject(status)) return failed("webhook answer has a malformed status");
    const allowed = status.allowed === true;
    const denied = status.denied === true;
    const reason = typeof status.reason === "string" ? status.reason : "";
    // Both at once is a contradiction; the safe reading is a denial.
    const decision = denied ? "deny" : allowed ? "allow" : "noOpinion";
    return { result: { decision, reason }, allowed: allowed && !denied };
  }

  return {
    name: "Webhook",
    async authorize(attributes) {
      let spec: Json;
      let key: string;
      try {
        spec = reviewSpec(attributes, version);
        key = JSON.stringify(spec);
      } catch (err) {
        return failed(`cannot describe the request: ${(err as Error).message}`);
      }
      const cached = cache.get(key);
      if (cached) return cached;
      const outcome = await review(spec);
      if (!("result" in outcome)) return outcome;
      if (attributesSize(attributes) < MAX_CACHED_ATTRIBUTES)
        cache.set(key, outcome.result, outcome.allowed ? authorizedTtl : unauthorizedTtl);
      return outcome.result;
    },
    rulesFor(): RulesResult {
      return {
        resourceRules: [],
        nonResourceRules: [],
        incomplete: true,
        evaluationError: "webhook authorizer does not support user rule resolution",
      };
    },
    close: () => client.close(),
  };
}
